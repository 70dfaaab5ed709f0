import { StateType } from './state-ops.model';

/**
 * Lua that reads and writes a block kept in the key (state-ops.model.ts), per state type.
 * Each defines, inside the body of `function(key, now, argv)`:
 *   read_block()          the block's end in µs, or nil; changes nothing
 *   hide_block()          removes the block, leaving the algorithm's state alone in the key
 *   write_block(until_)   puts a block ending at `until_` in the key, the key's TTL at
 *                         least until then
 */
const STRING_BLOCK = `
local function split_block(value)
  local inner, until_ = string.match(value, '^(.-)!(%d+)$')
  if until_ then
    return inner, tonumber(until_)
  end
  return value, nil
end
local function read_block()
  local found = redis.call('GET', key)
  if not found then
    return nil
  end
  local _, until_ = split_block(found)
  return until_
end
local function hide_block()
  local inner = split_block(redis.call('GET', key))
  if inner == '' then
    redis.call('DEL', key)
  else
    redis.call('SET', key, inner, 'KEEPTTL')
  end
end
local function write_block(until_)
  local pttl = redis.call('PTTL', key)
  local inner = redis.call('GET', key) or ''
  redis.call('SET', key, inner .. '!' .. exact(until_), 'PX', math.max(pttl, ttl_ms(until_ - now)))
end
`;

const ZSET_BLOCK = `
local function read_block()
  return tonumber(redis.call('ZSCORE', key, '#block'))
end
local function hide_block()
  redis.call('ZREM', key, '#block')
end
local function write_block(until_)
  local pttl = redis.call('PTTL', key)
  redis.call('ZADD', key, exact(until_), '#block')
  redis.call('PEXPIRE', key, math.max(pttl, ttl_ms(until_ - now)))
end
`;

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
