-- Leaky bucket as GCRA (redis-cell's CL.THROTTLE, quantity 1). The math: leaky-bucket.model.ts.
-- KEYS[1]  the theoretical arrival time (tat) in µs, as a string
-- ARGV[1]  now in µs, or '' for Redis TIME (prelude)
-- ARGV[2]  capacity        requests that may arrive at once (integer >= 1)
-- ARGV[3]  intervalMicros  T = 1 / rate, whole µs
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}
-- TTL      newTat - now after an allowed request; a denial writes nothing
local now = now_micros()
local capacity = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local tolerance = interval * capacity

local tat = now
local stored = redis.call('GET', KEYS[1])
if stored then
  tat = math.max(now, tonumber(stored))
end
local new_tat = tat + interval
local allow_at = new_tat - tolerance

if now < allow_at then
  return {0, 0, exact(tat - now), exact(allow_at - now), '0'}
end

local reset = new_tat - now
redis.call('SET', KEYS[1], exact(new_tat), 'PX', ttl_ms(reset))
local remaining = math.floor((tolerance - reset) / interval)
return {1, remaining, exact(reset), '0', '0'}
