--- @include "../state-ops/entries.lua"
--- @include "quota-limit.lua"
-- The calendar quota's entries in the library's table (state-ops/entries.lua).
add_entries(string_block, { acquire = quota_limit })
