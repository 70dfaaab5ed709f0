-- The engine as a Redis Functions library: the source of library.generated.lua, which
-- `npm run engine:library` composes from this file (compose-library.ts): each `--- @include`
-- is replaced by its file, once (a file included again is left out), comment lines and blank
-- lines are dropped, and __LIBRARY__ becomes the library's versioned name. The algorithms'
-- entries files come in the registry's order (registry.ts): together they fill the table an
-- entry's index names (state-ops/entries.lua). Where Redis has no Functions the store runs the same
-- text as a script (eval.lua).
--- @include "../../../algorithms/state-ops/prelude.lua"
--- @include "../../../algorithms/state-ops/string-block.lua"
--- @include "../../../algorithms/state-ops/zset-block.lua"
--- @include "../../../algorithms/state-ops/blockable.lua"
--- @include "../../../algorithms/state-ops/entries.lua"
--- @include "../../../algorithms/rate-limit/rate-limit.entries.lua"
--- @include "../../../algorithms/count-limit/count-limit.entries.lua"
--- @include "../../../algorithms/sliding-window-limit/sliding-window-limit.entries.lua"
--- @include "../../../algorithms/concurrency-limit/concurrency-limit.entries.lua"
--- @include "../../../algorithms/leaky-bucket-limit/leaky-bucket-limit.entries.lua"
--- @include "../../../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.entries.lua"
--- @include "../../../algorithms/quota-limit/quota-limit.entries.lua"
--- @include "engine.lua"

-- The library's two functions, named for its version so that two releases of the app load
-- theirs side by side: the engine on declared keys, and the engine on one Cluster node's
-- keys of several slots (its keys at the head of its arguments).
redis.register_function('__LIBRARY__', engine)
redis.register_function{
  function_name = '__LIBRARY___across_slots',
  callback = engine_across_slots,
  flags = {'allow-cross-slot-keys'},
}
