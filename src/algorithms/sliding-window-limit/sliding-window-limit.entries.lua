--- @include "../state-ops/entries.lua"
--- @include "sliding-window-limit.lua"
--- @include "sliding-window-limit.refund.lua"
--- @include "sliding-window-limit.charge.lua"
-- The sliding log's entries in the library's table (state-ops/entries.lua).
add_entries(zset_block, {
  acquire = sliding_window_limit, refund = sliding_window_limit_refund,
  charge = sliding_window_limit_charge, coalesced = true,
})
