--- @include "prelude.lua"
-- A block kept in a string state's own key (state-ops.model.ts):
--   string_block.read(key, now)   the block's end (µs), its level, the state's own expiry (µs);
--                                 or nil; a value without a block is left for the
--                                 algorithm's get_state (prelude.lua): one GET, not two
--   string_block.unblocked(key)   whether the key holds no block (one GET); its value is left
--                                 for the algorithm's get_state
--   string_block.hide(key, now)   removes the block, leaving the algorithm's state alone in the
--                                 key with its own TTL (kept, or for escalating blocks restored
--                                 from the suffix)
--   string_block.write(key, now, until_, level, keep_until)
--                                 puts a block ending at `until_` in the key (with `level`, the
--                                 step of escalating blocks, when given); the key's TTL at least
--                                 until `keep_until` (default `until_`)
-- Value: `<state>!<until>`, or `<state>!<until>!<level>!<state's expiry or ''>` (level 0: a
-- block set by hand, state-ops.lua).
local string_block = {}

local function split_block(value)
  -- Most values hold no block: a plain find spares them the two patterns.
  if not string.find(value, '!', 1, true) then
    return value, nil
  end
  local inner, until_, level, expires = string.match(value, '^(.-)!(%d+)!(%d+)!(%d*)$')
  if until_ then
    return inner, tonumber(until_), tonumber(level), tonumber(expires)
  end
  inner, until_ = string.match(value, '^(.-)!(%d+)$')
  if until_ then
    return inner, tonumber(until_)
  end
  return value, nil
end

function string_block.read(key)
  forget_state()
  local found = redis.call('GET', key)
  local _, until_, level, expires = split_block(found or '')
  if not until_ then
    read_key, read_value = key, found
  end
  return until_, level, expires
end

function string_block.unblocked(key)
  local found = redis.call('GET', key)
  read_key, read_value = key, found
  return not (found and string.find(found, '!', 1, true))
end

function string_block.hide(key, now)
  local inner, _, level, expires = split_block(redis.call('GET', key))
  local timed = level and expires
  put_state(key, inner ~= '' and not (timed and now >= expires) and inner or nil, timed and ttl_ms(expires - now))
end

function string_block.write(key, now, until_, level, keep_until)
  local pttl = redis.call('PTTL', key)
  local inner = redis.call('GET', key) or ''
  local value = inner .. '!' .. exact(until_)
  if level then
    local expires = (inner ~= '' and pttl >= 0) and exact(now + pttl * 1000) or ''
    value = value .. '!' .. level .. '!' .. expires
  end
  redis.call('SET', key, value, 'PX', math.max(pttl, ttl_ms((keep_until or until_) - now)))
end
