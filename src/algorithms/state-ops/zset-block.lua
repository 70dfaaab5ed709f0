-- A block kept in a zset state's own key (state-ops.model.ts): a `#block` member scored by
-- the block's end (µs), and for escalating blocks a `#level` member scored by the step of the
-- last block. The same helpers as string-block.lua; a zset's algorithm times its members
-- itself, so its TTL is simply kept.
local function read_block()
  local until_ = tonumber(redis.call('ZSCORE', key, '#block'))
  if not until_ then
    return nil
  end
  return until_, tonumber(redis.call('ZSCORE', key, '#level'))
end
local function hide_block()
  redis.call('ZREM', key, '#block', '#level')
end
local function write_block(until_, level, keep_until)
  local pttl = redis.call('PTTL', key)
  redis.call('ZADD', key, exact(until_), '#block')
  if level then
    redis.call('ZADD', key, level, '#level')
  end
  redis.call('PEXPIRE', key, math.max(pttl, ttl_ms((keep_until or until_) - now)))
end
-- When the key's TTL ends (µs): what a rewritten escalating block must keep.
local function key_kept_until()
  return now + math.max(0, redis.call('PTTL', key)) * 1000
end
