-- Fixed-window counter. The reasons and limits: fixed-window.model.ts.
-- The body of function(key, now, argv), run by the store's engine script (stores/engine).
-- key      the counter (an integer string)
-- now      unused: windows are Redis TTLs, timed by Redis's own clock
-- argv[1]  limit     requests per window
-- argv[2]  periodMs  window length in whole milliseconds
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}
-- TTL      one period from the window's first request
local limit = tonumber(argv[1])
local period_ms = tonumber(argv[2])
local count = redis.call('INCR', key)
local ttl = period_ms
if count == 1 then
  redis.call('PEXPIRE', key, period_ms)
else
  ttl = redis.call('PTTL', key)
  if ttl < 0 then
    redis.call('PEXPIRE', key, period_ms)
    ttl = period_ms
  end
end
if count <= limit then
  return {1, limit - count, ttl * 1000, 0, 0}
end
return {0, 0, ttl * 1000, ttl * 1000, 0}
