--- @include "../state-ops/prelude.lua"
-- Sliding-window log refund: takes permits off the acquire's own member, or, without an id,
-- off the newest requests' weight (never a block); a member refunded in part keeps the rest
-- of its weight at its time. Reasons: state-ops.model.ts. Its arguments (key, now,
-- argv): argv[1] limit, argv[2] windowMicros, argv[3] permits (the acquire's, or fewer for a
-- settled cost), argv[4] the acquire's id or ''. Redis deletes a zset left empty.
local function sliding_window_limit_refund(key, now, argv)
  local permits = tonumber(argv[3])
  if argv[4] ~= '' then
    -- Its whole weight at once; else a settled cost below what it reserved: the member is
    -- found by its id and keeps the rest of its weight.
    if redis.call('ZREM', key, weighted_member(argv[4], permits)) == 0 then
      local log = get_members(key)
      local at = member_index(log, 1, argv[4])
      if at then
        reweigh(key, log[at], log[at + 1], -permits)
      end
    end
    return
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now - tonumber(argv[2])))
  local newest = redis.call('ZREVRANGEBYSCORE', key, exact(now), '-inf', 'WITHSCORES', 'LIMIT', 0, permits + 1)
  local left = permits
  for i = 1, #newest, 2 do
    local member = newest[i]
    if left > 0 and member ~= '#block' then
      left = left - reweigh(key, member, newest[i + 1], -left)
    end
  end
end
