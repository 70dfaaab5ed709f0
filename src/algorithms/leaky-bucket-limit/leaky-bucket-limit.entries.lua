--- @include "../state-ops/entries.lua"
--- @include "leaky-bucket-limit.lua"
--- @include "leaky-bucket-limit.refund.lua"
--- @include "leaky-bucket-limit.charge.lua"
-- The leaky bucket's entries in the library's table (state-ops/entries.lua).
add_entries(string_block, {
  acquire = leaky_bucket_limit, refund = leaky_bucket_limit_refund,
  charge = leaky_bucket_limit_charge, coalesced = true,
})
