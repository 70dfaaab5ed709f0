--- @include "../state-ops/entries.lua"
--- @include "count-limit.lua"
--- @include "count-limit.incr.lua"
--- @include "count-limit.refund.lua"
-- The counter's entries in the library's table (state-ops/entries.lua).
add_entries(string_block, {
  acquire = count_limit, fast = count_limit_incr, refund = count_limit_refund,
  charge = without_limit(count_limit), coalesced = true,
})
