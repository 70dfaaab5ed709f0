-- Leaky bucket as GCRA (redis-cell's CL.THROTTLE, quantity 1). The math: leaky-bucket.model.ts.
-- The body of function(key, now, argv), run by the store's engine script (stores/engine).
-- key      the theoretical arrival time (tat) in µs, as a string
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  capacity        requests that may arrive at once (integer >= 1)
-- argv[2]  intervalMicros  T = 1 / rate, whole µs
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}
-- TTL      newTat - now after an allowed request; a denial writes nothing
local capacity = tonumber(argv[1])
local interval = tonumber(argv[2])
local tolerance = interval * capacity

local tat = now
local stored = redis.call('GET', key)
if stored then
  tat = math.max(now, tonumber(stored))
end
local new_tat = tat + interval
local allow_at = new_tat - tolerance

if now < allow_at then
  return {0, 0, exact(tat - now), exact(allow_at - now), '0'}
end

local reset = new_tat - now
redis.call('SET', key, exact(new_tat), 'PX', ttl_ms(reset))
local remaining = math.floor((tolerance - reset) / interval)
return {1, remaining, exact(reset), '0', '0'}
