import { LuaDefinition, luaInclude } from '../lua-source';
import { StateType } from './state-ops.model';

const BLOCKS: Record<StateType, LuaDefinition> = {
  string: luaInclude(__dirname, 'string-block.lua', 'string_block'),
  zset: luaInclude(__dirname, 'zset-block.lua', 'zset_block'),
};

/** The Lua table that reads and writes a block kept in a key of `stateType` (state-ops.model.ts). */
export function blocksLua(stateType: StateType): LuaDefinition {
  return BLOCKS[stateType];
}

/** Its name, as the Lua of peek, block and refund takes it. */
export function blocksOf(stateType: StateType): string {
  return BLOCKS[stateType].name;
}

/** Peek, reset, block and adjust (refund, charge) around an algorithm's function. */
export const STATE_OPS_LUA = luaInclude(__dirname, 'state-ops.lua', 'state_ops');
