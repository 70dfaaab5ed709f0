-- Concurrency limit with leases. The math and its reasons: concurrency.model.ts.
-- The body of function(key, now, argv), run by the store's engine script (stores/engine).
-- key      the in-flight requests: a zset, member = the request's id (with the slots it
--          holds when above 1: the prelude's weighted_member), score = lease expiry in µs
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  max          slots in flight at once (integer >= 1)
-- argv[2]  leaseMicros  lease length in whole µs
-- argv[3]  op           'acquire' or 'release'
-- argv[4]  id           the request's id
-- argv[5]  permits      the slots it takes or gives back together (integer >= 0; 0 peeks;
--                       absent: 1)
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; a release is allowed;
--          retryAfter -1 for more slots than max (it can never pass)
-- TTL      until the last lease expires: lease after an acquire; a release keeps it
--          (and an emptied zset is deleted by Redis)
-- Block    a member '#block' scored by the block's end (factory `block(seconds)`): acquires
--          are denied until then, releases still run; dropped with the expired leases
local max = tonumber(argv[1])
local lease = tonumber(argv[2])
local permits = tonumber(argv[5]) or 1
local member = weighted_member(argv[4], permits)

redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now))
local blocked_until = tonumber(redis.call('ZSCORE', key, '#block'))

local function until_last_expiry()
  local last = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if last[2] == nil then
    return 0
  end
  return tonumber(last[2]) - now
end

-- The leases in flight, earliest first, and the slots they hold (never the block): at
-- most `max` members, each holding at least one slot.
local function slots_held()
  local leases = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local count = 0
  for i = 1, #leases, 2 do
    if leases[i] ~= '#block' then
      count = count + member_weight(leases[i])
    end
  end
  return count, leases
end

if argv[3] == 'release' then
  redis.call('ZREM', key, member)
  return {1, max - slots_held(), until_last_expiry(), 0, 0}
end

if blocked_until then
  return {0, 0, until_last_expiry(), blocked_until - now, 0}
end

local count, leases = slots_held()
if permits > max then
  return {0, math.max(0, max - count), until_last_expiry(), -1, 0}
end
local holding = redis.call('ZSCORE', key, member)
if holding or count + permits <= max then
  if permits == 0 then
    return {1, max - count, until_last_expiry(), 0, 0}
  end
  redis.call('ZADD', key, exact(now + lease), member)
  redis.call('PEXPIRE', key, ttl_ms(until_last_expiry()))
  if not holding then
    count = count + permits
  end
  return {1, max - count, until_last_expiry(), 0, 0}
end

-- The lease that must end before this request fits: earliest first, until enough slots
-- are free (the earliest for one slot when count == max).
local freed = 0
for i = 1, #leases, 2 do
  freed = freed + member_weight(leases[i])
  if count - freed + permits <= max then
    return {0, math.max(0, max - count), until_last_expiry(), tonumber(leases[i + 1]) - now, 0}
  end
end
