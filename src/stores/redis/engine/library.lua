-- The engine as a Redis Functions library: the source of library.generated.lua, which
-- `npm run engine:library` composes from this file (compose-library.ts): `--- @algorithms`
-- becomes each built-in algorithm's files and the table an entry's index names, written from
-- the registry's definitions; each `--- @include` is replaced by its file, once (a file
-- included again is left out), comment lines and blank lines are dropped, and __LIBRARY__
-- becomes the library's versioned name. Where Redis has no Functions the store runs the same
-- text as a script (eval.lua).
--- @include "../../../algorithms/state-ops/prelude.lua"
--- @include "../../../algorithms/state-ops/string-block.lua"
--- @include "../../../algorithms/state-ops/zset-block.lua"
--- @include "../../../algorithms/state-ops/blockable.lua"
--- @include "../../../algorithms/state-ops/state-ops.lua"
--- @include "../../../algorithms/state-ops/coalesced.lua"
--- @algorithms
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
