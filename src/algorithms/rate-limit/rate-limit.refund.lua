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
  if found then
    local empty_at = math.max(math.floor(moment_of(found, '') - tonumber(argv[6]) * interval), math.ceil(now - full_span))
    local full = empty_at <= now - full_span and tonumber(argv[3]) >= max_permits
    put_state(key, not full and exact(empty_at) .. (string.match(found, '~.*') or '') or nil, ttl_ms(math.max(expire, empty_at + full_span - now)))
  end
end
