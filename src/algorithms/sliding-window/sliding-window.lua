-- Sliding-window log. The math and its reasons: sliding-window.model.ts.
-- The body of function(key, now, argv), run by the store's engine script (stores/engine).
-- key      the log: a zset, member "<now>:<id>", score = request time in µs
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  limit         requests allowed within any window (integer >= 1)
-- argv[2]  windowMicros  window length in whole µs
-- argv[3]  id            unique per request, so members never collide
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}
-- TTL      window, set on each allowed request; a denial keeps it
local limit = tonumber(argv[1])
local window = tonumber(argv[2])

redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now - window))
local count = redis.call('ZCARD', key)

if count < limit then
  redis.call('ZADD', key, exact(now), exact(now) .. ':' .. argv[3])
  redis.call('PEXPIRE', key, ttl_ms(window))
  return {1, limit - count - 1, window, 0, 0}
end

-- The request that must leave before one more fits: the oldest when count == limit.
local freeing = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
local retry_after = tonumber(freeing[2]) + window - now
local reset = tonumber(newest[2]) + window - now
return {0, 0, reset, retry_after, 0}
