-- Concurrency limit with leases. The math and its reasons: concurrency.model.ts.
-- The body of function(key, now, argv), run by the store's engine script (stores/engine).
-- key      the in-flight requests: a zset, member = request id, score = lease expiry in µs
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  max          requests in flight at once (integer >= 1)
-- argv[2]  leaseMicros  lease length in whole µs
-- argv[3]  op           'acquire' or 'release'
-- argv[4]  id           the request's id
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; a release is allowed
-- TTL      until the last lease expires: lease after an acquire; a release keeps it
--          (and an emptied zset is deleted by Redis)
-- Block    a member '#block' scored by the block's end (factory `block(seconds)`): acquires
--          are denied until then, releases still run; dropped with the expired leases
local max = tonumber(argv[1])
local lease = tonumber(argv[2])
local id = argv[4]

redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now))
local blocked_until = tonumber(redis.call('ZSCORE', key, '#block'))

local function until_last_expiry()
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] == nil then
    return 0
  end
  return tonumber(last[2]) - now
end

if argv[3] == 'release' then
  redis.call('ZREM', key, id)
  local count = redis.call('ZCARD', key) - (blocked_until and 1 or 0)
  return {1, max - count, until_last_expiry(), 0, 0}
end

if blocked_until then
  return {0, 0, until_last_expiry(), blocked_until - now, 0}
end

local count = redis.call('ZCARD', key)
local holding = redis.call('ZSCORE', key, id)
if holding or count < max then
  redis.call('ZADD', key, exact(now + lease), id)
  redis.call('PEXPIRE', key, ttl_ms(until_last_expiry()))
  if not holding then
    count = count + 1
  end
  return {1, max - count, until_last_expiry(), 0, 0}
end

-- The lease that must end before one more fits: the earliest when count == max.
local freeing = redis.call('ZRANGE', key, count - max, count - max, 'WITHSCORES')
return {0, 0, until_last_expiry(), tonumber(freeing[2]) - now, 0}
