--- @include "../state-ops/prelude.lua"
-- Fixed-window charge: adds permits to the current window's count whatever the limit (a
-- settled cost above what was reserved), keeping the window's TTL. A count
-- above the limit is the debt: requests are denied until the window ends and repays it.
-- Its arguments: argv[1] limit, argv[2] periodMs, argv[3] permits.
local function count_limit_charge(key, now, argv)
  local period_ms, permits = tonumber(argv[2]), tonumber(argv[3])
  local count = tonumber(get_state(key))
  if not count then
    redis.call('SET', key, permits, 'PX', period_ms)
    return {1, 0, 0, 0, 0}
  end
  redis.call('INCRBY', key, permits)
  local pttl = redis.call('PTTL', key)
  if pttl < 0 or pttl > period_ms then
    -- Self-healing, as the acquire does: a counter without a TTL gets one period, and one of a
    -- longer period is cut to this one.
    redis.call('PEXPIRE', key, period_ms)
  end
  return {1, 0, 0, 0, 0}
end
