import { StateType } from './state-ops.model';

/**
 * The Lua table that reads and writes a block kept in a key of `stateType` (string-block.lua,
 * zset-block.lua): its name in the engine library, where the block operations are named for it.
 */
export function blocksOf(stateType: StateType): string {
  return stateType === 'string' ? 'string_block' : 'zset_block';
}
