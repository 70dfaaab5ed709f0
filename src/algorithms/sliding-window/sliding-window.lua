-- Sliding-window log. The math and its reasons: sliding-window.model.ts.
-- KEYS[1]  the log: a zset, member "<now>:<id>", score = request time in µs
-- ARGV[1]  now in µs, or '' for Redis TIME (prelude)
-- ARGV[2]  limit         requests allowed within any window (integer >= 1)
-- ARGV[3]  windowMicros  window length in whole µs
-- ARGV[4]  id            unique per request, so members never collide
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}
-- TTL      window, set on each allowed request; a denial keeps it
local now = now_micros()
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', exact(now - window))
local count = redis.call('ZCARD', KEYS[1])

if count < limit then
  redis.call('ZADD', KEYS[1], exact(now), exact(now) .. ':' .. ARGV[4])
  redis.call('PEXPIRE', KEYS[1], ttl_ms(window))
  return {1, limit - count - 1, window, 0, 0}
end

-- The request that must leave before one more fits: the oldest when count == limit.
local freeing = redis.call('ZRANGE', KEYS[1], count - limit, count - limit, 'WITHSCORES')
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local retry_after = tonumber(freeing[2]) + window - now
local reset = tonumber(newest[2]) + window - now
return {0, 0, reset, retry_after, 0}
