--- @include "../state-ops/prelude.lua"
-- Token bucket refund: gives permits back, never above the maximum. Reasons: state-ops.model.ts.
-- Its arguments; argv as rate-limit.lua's parameters, then
-- argv[6] permits. The value keeps the options it was written under (its `~` mark). E moves back by permits * interval, never before now - full_span (a
-- full bucket); rounded down, which at most undoes the acquire's rounding up.
-- A bucket back to full is deleted when a new bucket starts full: it decides the same.
local function rate_limit_refund(key, now, argv)
  local max_permits, interval, expire = tonumber(argv[1]), tonumber(argv[2]), tonumber(argv[4])
  local full_span = max_permits * interval
  local found = get_state(key)
  if not found then
    return {1, 0, 0, 0, 0}
  end
  local empty_at = math.max(math.floor(moment_of(found, '') - tonumber(argv[6]) * interval), math.ceil(now - full_span))
  if empty_at <= now - full_span and tonumber(argv[3]) >= max_permits then
    redis.call('DEL', key)
  else
    redis.call('SET', key, exact(empty_at) .. (string.match(found, '~.*') or ''), 'PX', ttl_ms(math.max(expire, empty_at + full_span - now)))
  end
  return {1, 0, 0, 0, 0}
end
