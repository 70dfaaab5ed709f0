--- @include "../state-ops/entries.lua"
--- @include "rate-limit.lua"
--- @include "rate-limit.refund.lua"
-- The token bucket's entries in the library's table (state-ops/entries.lua).
add_entries(string_block, {
  acquire = rate_limit, refund = rate_limit_refund, charge = rate_limit, coalesced = true,
})
