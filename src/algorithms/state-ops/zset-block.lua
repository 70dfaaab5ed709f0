-- A block kept in a zset state's own key (state-ops.model.ts): a `#block` member scored by
-- the block's end (µs), and for escalating blocks a `#level` member scored by the step of the
-- last block. The same operations as string-block.lua; a zset's algorithm times its members
-- itself, so its TTL is simply kept.
local zset_block = {}

function zset_block.read(key)
  local until_ = tonumber(redis.call('ZSCORE', key, '#block'))
  if not until_ then
    return nil
  end
  return until_, tonumber(redis.call('ZSCORE', key, '#level'))
end

function zset_block.hide(key)
  redis.call('ZREM', key, '#block', '#level')
end

function zset_block.write(key, now, until_, level, keep_until)
  local pttl = redis.call('PTTL', key)
  redis.call('ZADD', key, exact(until_), '#block')
  if level then
    redis.call('ZADD', key, level, '#level')
  end
  redis.call('PEXPIRE', key, math.max(pttl, ttl_ms((keep_until or until_) - now)))
end
