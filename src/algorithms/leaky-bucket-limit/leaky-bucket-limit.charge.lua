-- Leaky bucket charge: the TAT moves on by permits * T whatever the capacity (a settled
-- cost above what was reserved). A TAT beyond now + capacity * T is the debt:
-- requests are denied, with the time it takes to drain, until the bucket has leaked it.
-- The body of function(key, now, argv): argv[1] capacity, argv[2] intervalMicros,
-- argv[3] permits.
local tat = now
local found = get_state(key)
if found then
  tat = math.max(now, tonumber(found))
end
tat = tat + tonumber(argv[3]) * tonumber(argv[2])
redis.call('SET', key, exact(tat), 'PX', ttl_ms(tat - now))
return {1, 0, 0, 0, 0}
