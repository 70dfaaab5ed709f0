-- Fixed-window counter. The reasons and limits: fixed-window.model.ts.
-- KEYS[1]  the counter (an integer string)
-- ARGV[1]  unused by this script: windows are Redis TTLs, timed by Redis's own clock
-- ARGV[2]  limit     requests per window
-- ARGV[3]  periodMs  window length in whole milliseconds
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}
-- TTL      one period from the window's first request
local limit = tonumber(ARGV[2])
local period_ms = tonumber(ARGV[3])
local count = redis.call('INCR', KEYS[1])
local ttl = period_ms
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], period_ms)
else
  ttl = redis.call('PTTL', KEYS[1])
  if ttl < 0 then
    redis.call('PEXPIRE', KEYS[1], period_ms)
    ttl = period_ms
  end
end
if count <= limit then
  return {1, limit - count, ttl * 1000, 0, 0}
end
return {0, 0, ttl * 1000, ttl * 1000, 0}
