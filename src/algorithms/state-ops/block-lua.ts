import { loadLua } from '../lua-source';
import { StateType } from './state-ops.model';

const STRING_BLOCK = loadLua(__dirname, 'string-block.lua');
const ZSET_BLOCK = loadLua(__dirname, 'zset-block.lua');

/**
 * Lua that reads and writes a block kept in the key (state-ops.model.ts), per state type:
 * `read_block`, `hide_block` and `write_block`, described in string-block.lua.
 */
export function blockLua(stateType: StateType): string {
  return stateType === 'string' ? STRING_BLOCK : ZSET_BLOCK;
}

/** An algorithm's body as a local function `name(key, now, argv)` inside another body. */
export function localFunction(name: string, body: string): string {
  return `local function ${name}(key, now, argv)\n${body}\nend\n`;
}

/** Lua that sets `rest` to argv without its first value. */
export const SHIFT_ARGV = `local rest = {}
for i = 2, #argv do
  rest[i - 1] = argv[i]
end
`;
