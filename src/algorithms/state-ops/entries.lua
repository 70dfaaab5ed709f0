--- @include "state-ops.lua"
--- @include "coalesced.lua"
-- The engine library's table: each algorithm's <name>.entries.lua adds its entries with
-- add_entries, in the registry's order (registry.ts; library-entries.ts lists the same roles,
-- and a test holds the two equal), so an entry's index names the same function in Lua and in
-- TypeScript. Per algorithm, in this order: its acquire (with blocks), peek, reset and block,
-- then its refund, charge and coalesced form where it has them.
-- add_entries(blocks, spec)
-- blocks           where its state type keeps a block (string_block, zset_block)
-- spec.acquire     its function
-- spec.keeps_block the acquire keeps its block itself (slots): no blocks around it
-- spec.fast        the acquire's usual case in fewer commands, tried first (the counter's)
-- spec.refund      the function a refund runs; spec.charge, a charge's (the acquire's own
--                  for the token bucket, whose charge is its acquire without a timeout)
-- spec.coalesced   true: n acquires of one key against the write-back cell
local algorithms = {}

local function add_entries(blocks, spec)
  local function add(entry)
    algorithms[#algorithms + 1] = entry
  end
  local decide = spec.acquire
  local acquire = spec.keeps_block and decide or blockable_acquire(decide, blocks)
  add(spec.fast and blockable_acquire(decide, blocks, spec.fast) or acquire)
  add(peek_of(acquire, blocks))
  add(reset_state)
  add(block_of(blocks, spec.keeps_block))
  if spec.refund then
    add(adjust_of(spec.refund, blocks))
  end
  if spec.charge then
    add(adjust_of(spec.charge, blocks))
  end
  if spec.coalesced then
    add(coalesced_of(decide, blocks))
  end
end
