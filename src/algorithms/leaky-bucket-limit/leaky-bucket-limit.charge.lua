--- @include "../state-ops/prelude.lua"
-- Leaky bucket charge: the TAT moves on by permits * T whatever the capacity (a settled
-- cost above what was reserved). A TAT beyond now + capacity * T is the debt:
-- requests are denied, with the time it takes to drain, until the bucket has leaked it.
-- A tat written under other options is cut first, as the acquire cuts it.
-- Its arguments: argv[1] capacity, argv[2] intervalMicros,
-- argv[3] fingerprint, argv[4] permits.
local function leaky_bucket_limit_charge(key, now, argv)
  local interval = tonumber(argv[2])
  local tat = now
  local found = get_state(key)
  if found then
    local moment, same = moment_of(found, argv[3])
    tat = math.max(now, same and moment or math.min(moment, now + interval * tonumber(argv[1])))
  end
  tat = tat + tonumber(argv[4]) * interval
  redis.call('SET', key, exact(tat) .. '~' .. argv[3], 'PX', ttl_ms(tat - now))
end
