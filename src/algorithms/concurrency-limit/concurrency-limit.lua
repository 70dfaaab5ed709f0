--- @include "../state-ops/prelude.lua"
-- Concurrency limit with leases. The math and its reasons: concurrency-limit.model.ts.
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
--          (and an emptied zset is deleted by Redis); a lease written under a longer
--          `lease` is cut to end one lease from now, and the TTL with it
-- Block    a member '#block' scored by the block's end (factory `block(seconds)`): acquires
--          are denied until then, releases still run; dropped with the expired leases
local function concurrency_limit(key, now, argv)
  local max, lease, permits = tonumber(argv[1]), tonumber(argv[2]), tonumber(argv[5]) or 1
  local member = weighted_member(argv[4], permits)

  -- One read of every member: the leases still running (at most `max`, each holding at least
  -- one slot), a block, the request's own lease; expired leases (and a past block) dropped.
  local leases = get_members(key)
  local first = drop_scored_up_to(key, leases, now)
  -- Scores run up: only the last tells of a lease written under a longer `lease` (before a
  -- restart or an override). Such leases end one lease from now, so they never outlive the
  -- options, and the TTL follows; a block keeps its end (while one outlasts every lease, the
  -- leases are cut once it has ended).
  if #leases > first and leases[#leases - 1] ~= '#block' and tonumber(leases[#leases]) > now + lease then
    for i = first, #leases, 2 do
      if leases[i] ~= '#block' and tonumber(leases[i + 1]) > now + lease then
        redis.call('ZADD', key, 'XX', exact(now + lease), leases[i])
      end
    end
    leases, first = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES'), 1
    redis.call('PEXPIRE', key, ttl_ms(tonumber(leases[#leases]) - now))
  end
  local blocked_until, held_at, count = nil, nil, 0
  for i = first, #leases, 2 do
    local name = leases[i]
    if name == '#block' then
      blocked_until = tonumber(leases[i + 1])
    else
      count = count + member_weight(name)
      if name == member then
        held_at = i
      end
    end
  end

  if argv[3] == 'release' then
    if held_at then
      redis.call('ZREM', key, member)
      count = count - permits
    end
    return {1, max - count, until_last_score(leases, first, held_at, now), 0, 0}
  end

  if blocked_until then
    return {0, 0, until_last_score(leases, first, nil, now), blocked_until - now, 0}
  end

  if permits > max then
    return {0, math.max(0, max - count), until_last_score(leases, first, nil, now), -1, 0}
  end
  -- A request of 0 passes only where one of 1 would (it takes nothing).
  local need = math.max(permits, 1)
  if held_at or count + need <= max then
    if permits == 0 then
      return {1, max - count, until_last_score(leases, first, nil, now), 0, 0}
    end
    redis.call('ZADD', key, string.format('%d', now + lease), member)
    local last = math.max(lease, until_last_score(leases, first, held_at, now))
    redis.call('PEXPIRE', key, ttl_ms(last))
    if not held_at then
      count = count + permits
    end
    return {1, max - count, last, 0, 0}
  end

  -- The lease that must end before this request fits: earliest first, until enough slots
  -- are free (the earliest for one slot when count == max).
  local freed = 0
  for i = first, #leases, 2 do
    freed = freed + member_weight(leases[i])
    if count - freed + need <= max then
      return {0, math.max(0, max - count), until_last_score(leases, first, nil, now), tonumber(leases[i + 1]) - now, 0}
    end
  end
end
