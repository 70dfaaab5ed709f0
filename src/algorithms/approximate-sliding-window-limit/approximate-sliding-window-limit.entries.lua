--- @include "../state-ops/entries.lua"
--- @include "approximate-sliding-window-limit.lua"
--- @include "approximate-sliding-window-limit.refund.lua"
-- The approximate window's entries in the library's table (state-ops/entries.lua).
add_entries(string_block, {
  acquire = approximate_sliding_window_limit, refund = approximate_sliding_window_limit_refund,
  charge = without_limit(approximate_sliding_window_limit), coalesced = true,
})
