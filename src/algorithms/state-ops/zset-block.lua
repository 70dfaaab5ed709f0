--- @include "prelude.lua"
-- A block kept in a zset state's own key (state-ops.model.ts): a `#block` member scored by
-- the block's end (µs), and for escalating blocks a `#level` member scored by the step of the
-- last block (0 for a block set by hand). The same operations as string-block.lua; a zset's algorithm times its members
-- itself, so its TTL is simply kept. The read is the algorithm's own (every member, which
-- the sliding log and the concurrency limit read anyway): a key without a block costs no
-- command of its own, and its members are left for the algorithm's get_members (prelude.lua).
-- `zset`: a coalescer's cell on such a key holds its members (prelude.lua's window_of).
local zset_block = {zset = true}

function zset_block.read(key)
  forget_state()
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local until_, level = nil, nil
  for i = 1, #members, 2 do
    local member = members[i]
    if member == '#block' then
      until_ = tonumber(members[i + 1])
    elseif member == '#level' then
      level = tonumber(members[i + 1])
    end
  end
  if not until_ then
    read_key, read_value = key, members
    return nil
  end
  return until_, level
end

-- Whether the key holds no block: its read, whose members are left for get_members.
function zset_block.unblocked(key)
  return not zset_block.read(key)
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
