-- Concurrency limit with leases. The math and its reasons: concurrency.model.ts.
-- KEYS[1]  the in-flight requests: a zset, member = request id, score = lease expiry in µs
-- ARGV[1]  now in µs, or '' for Redis TIME (prelude)
-- ARGV[2]  max          requests in flight at once (integer >= 1)
-- ARGV[3]  leaseMicros  lease length in whole µs
-- ARGV[4]  op           'acquire' or 'release'
-- ARGV[5]  id           the request's id
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; a release is allowed
-- TTL      until the last lease expires: lease after an acquire; a release keeps it
--          (and an emptied zset is deleted by Redis)
local now = now_micros()
local max = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
local id = ARGV[5]

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', exact(now))

local function until_last_expiry()
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if last[2] == nil then
    return 0
  end
  return tonumber(last[2]) - now
end

if ARGV[4] == 'release' then
  redis.call('ZREM', KEYS[1], id)
  local count = redis.call('ZCARD', KEYS[1])
  return {1, max - count, until_last_expiry(), 0, 0}
end

local count = redis.call('ZCARD', KEYS[1])
local holding = redis.call('ZSCORE', KEYS[1], id)
if holding or count < max then
  redis.call('ZADD', KEYS[1], exact(now + lease), id)
  redis.call('PEXPIRE', KEYS[1], ttl_ms(until_last_expiry()))
  if not holding then
    count = count + 1
  end
  return {1, max - count, until_last_expiry(), 0, 0}
end

-- The lease that must end before one more fits: the earliest when count == max.
local freeing = redis.call('ZRANGE', KEYS[1], count - max, count - max, 'WITHSCORES')
return {0, 0, until_last_expiry(), tonumber(freeing[2]) - now, 0}
