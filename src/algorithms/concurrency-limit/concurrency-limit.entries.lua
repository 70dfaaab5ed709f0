--- @include "../state-ops/entries.lua"
--- @include "concurrency-limit.lua"
-- The concurrency limit's entries in the library's table (state-ops/entries.lua).
add_entries(zset_block, { acquire = concurrency_limit, keeps_block = true })
