--- @include "../state-ops/prelude.lua"
-- Leaky bucket refund: the TAT moves back by permits * T, never before now (an empty
-- bucket); a bucket back to empty is deleted (a missing TAT means now). Reasons:
-- state-ops.model.ts. Its arguments: argv[1] capacity,
-- argv[2] intervalMicros, argv[3] fingerprint, argv[4] permits; the value keeps the
-- options it was written under (its `~` mark).
local function leaky_bucket_limit_refund(key, now, argv)
  local found = get_state(key)
  if found then
    local tat = moment_of(found, '') - tonumber(argv[4]) * tonumber(argv[2])
    put_state(key, tat > now and exact(tat) .. (string.match(found, '~.*') or '') or nil, ttl_ms(tat - now))
  end
end
