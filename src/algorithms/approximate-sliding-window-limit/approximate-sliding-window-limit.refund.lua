--- @include "../state-ops/prelude.lua"
-- Approximate sliding window refund: takes permits off the count of the window the
-- acquire counted in (the current count or the previous one), never below 0, never a
-- newer window's. Reasons: state-ops.model.ts. Its arguments:
-- argv[1] limit, argv[2] windowMicros, argv[3] permits, argv[4] unused, argv[5] the
-- acquire's reset minus the time since, in µs, or '' for the current window. An allowed
-- acquire's reset is the end of the window after its own, hence the - 2.
local function approximate_sliding_window_limit_refund(key, now, argv)
  local window, permits = tonumber(argv[2]), tonumber(argv[3])
  local found = get_state(key)
  if not found then
    return
  end
  local i, c, p = string.match(found, '^(%S+) (%S+) (%S+)$')
  i, c, p = tonumber(i), tonumber(c), tonumber(p)
  local index = argv[5] == '' and math.floor(now / window) or math.floor((now + tonumber(argv[5])) / window + 0.5) - 2
  if index == i then
    c = math.max(0, c - permits)
  elseif index == i - 1 then
    p = math.max(0, p - permits)
  else
    return
  end
  put_state(key, (c > 0 or p > 0) and exact(i) .. ' ' .. exact(c) .. ' ' .. exact(p) or nil)
end
