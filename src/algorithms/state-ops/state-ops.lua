--- @include "prelude.lua"
-- Peek, reset, block, refund and charge on a limit's key (state-ops.model.ts), around the
-- algorithm's own function: `blocks` is where its state type keeps a block (string_block,
-- zset_block). Each makes an entry's function (key, now, argv), which returns the engine's
-- reply of 5 values; the library's table holds them (stores/redis/engine/compose-library.ts).

-- The acquire's decision on a request of 0 permits, on a snapshot of the key restored after:
-- what a request could take, and when the state is fully recovered, as it stands (a trial
-- request would count itself). The block is hidden first, so the algorithm's state decides;
-- the peek's argv asks for no block on a denial. While a block holds: nothing can be taken,
-- and the state is recovered when both the state and the block are; the block left goes in
-- the reply's wait.
local function peek_of(decide, blocks)
  return function(key, now, argv)
    local until_ = blocks.read(key, now)
    local left = math.max(0, (until_ or now) - now)
    local saved = snapshot(key)
    if until_ then
      blocks.hide(key, now)
    end
    local reply = decide(key, now, argv)
    restore(key, saved)
    if left > 0 then
      return {0, 0, math.max(tonumber(reply[3]), left), math.max(tonumber(reply[4]), left), left}
    end
    return {reply[1], reply[2], reply[3], reply[4], 0}
  end
end

-- Forgets the key, its block included.
local function reset_state(key)
  redis.call('DEL', key)
  return {1, 0, 0, 0, 0}
end

-- Blocks the key until now + argv[1] µs; a block set by hand starts no escalation, and is
-- marked as level 0 so that no block option cuts it (blockable.lua). `over`: the block is
-- written over any earlier one, the key's TTL kept (a key without levels: concurrency,
-- whose blocks are all set by hand).
local function block_of(blocks, over)
  return function(key, now, argv)
    if not over and blocks.read(key, now) then
      blocks.hide(key, now)
    end
    blocks.write(key, now, now + tonumber(argv[1]), (not over) and 0 or nil)
    return {1, 0, 0, 0, 0}
  end
end

-- A refund or a charge (`adjust`) on the state with any block hidden, the block put back
-- after: a block in force stays, and so does the level of escalating blocks, until its TTL.
local function adjust_of(adjust, blocks)
  return function(key, now, argv)
    local until_, level = blocks.read(key, now)
    local keep_until = nil
    if until_ then
      if level then
        keep_until = now + math.max(0, redis.call('PTTL', key)) * 1000
      end
      blocks.hide(key, now)
    end
    adjust(key, now, argv)
    if until_ and (until_ > now or level) then
      blocks.write(key, now, until_, level, keep_until)
    end
    return {1, 0, 0, 0, 0}
  end
end

-- A charge that is the acquire with its limit (argv[1]) lifted: the acquire's own write of
-- the permits, whatever the count, so a settled cost above what was reserved is the debt
-- later requests find (the counter's, the approximate window's).
local function without_limit(decide)
  return function(key, now, argv)
    local lifted = args_of(argv, 1, #argv)
    lifted[1] = math.huge
    return decide(key, now, lifted)
  end
end
