--- @include "../state-ops/prelude.lua"
-- Sliding-window log charge: logs one member now weighing the permits, whatever the limit
-- (a settled cost above what was reserved). A log above the limit is the debt:
-- requests are denied until enough weight has aged out of the window. Reasons:
-- state-ops.model.ts. Its arguments: argv[1] limit,
-- argv[2] windowMicros, argv[3] permits, argv[4] the acquire's id or ''. The member is
-- the acquire's id marked as its charge (its own member stays, for a refund), or, without
-- one, named by the time. A second charge of the same name adds its weight to the first's
-- member, moved to now: a log holds one member per id, else a refund of part of one would
-- rename it onto the other (ZADD of an existing member), and the weight of one would be lost.
local function sliding_window_limit_charge(key, now, argv)
  local window = tonumber(argv[2])
  local id = argv[4] == '' and 'charge:' .. exact(now) or argv[4] .. '+'
  local log = get_members(key)
  local at = member_index(log, drop_scored_up_to(key, log, now - window), id)
  if at then
    reweigh(key, log[at], exact(now), tonumber(argv[3]))
  else
    redis.call('ZADD', key, exact(now), weighted_member(id, tonumber(argv[3])))
  end
  redis.call('PEXPIRE', key, ttl_ms(window))
end
