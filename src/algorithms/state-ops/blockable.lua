-- An acquire with blocks (state-ops.model.ts, blockable.ts): a blocked key denies at once; a
-- block past its end is dropped; a denial with a block > 0 blocks the key for that long, or
-- with escalating steps for the step after the last block's. `decide` is the algorithm's
-- function, `blocks` where its state type keeps a block (string_block, zset_block);
-- blockable_acquire(decide, blocks, fast) is the acquire's function (key, now, argv): one call
-- less on each entry's path than a function around it. `fast`, where the algorithm has one
-- (count-limit.incr.lua), is tried first: fast(key, argv) answers, or nil sends the decision
-- the long way. argv starts with the block (µs, or the steps joined by commas), then the
-- algorithm's own.
-- The algorithm's own arguments, past the block: made once for a run of one limit's entries,
-- whose argv is one table that nothing writes (engine.lua).
local own_of, own = nil, nil
local function own_args(argv)
  if argv ~= own_of then
    own_of, own = argv, args_of(argv, 2, #argv)
  end
  return own
end

-- The key's block and its level, a block a denial wrote under a longer block than these
-- options give (`block`, or the step of its level) cut to theirs first and written so: none
-- when they give none. A block set by hand (level 0) keeps its end.
local function current_block(blocks, key, now, block, steps)
  local until_, level = blocks.read(key, now)
  block = steps and steps[math.min(level or 1, #steps)] or block
  if until_ and level ~= 0 and until_ > now + block then
    blocks.hide(key, now)
    if block == 0 then
      return nil
    end
    until_ = now + block
    blocks.write(key, now, until_, steps and level, steps and until_ + steps[#steps])
  end
  return until_, level
end

local function blockable_acquire(decide, blocks, fast)
  local function acquire(key, now, argv)
    -- A limit without blocks on a key that holds none (the usual decision): the state's one
    -- read, then the algorithm, with nothing of the block's to check after it.
    if argv[1] == '0' and blocks.unblocked(key) then
      if argv ~= own_of then
        own_args(argv)
      end
      return decide(key, now, own)
    end
    local block, steps = tonumber(argv[1]), nil
    if not block then
      steps = {}
      for step in string.gmatch(argv[1], '[^,]+') do
        steps[#steps + 1] = tonumber(step)
      end
      block = steps[1]
    end
    local until_, level = current_block(blocks, key, now, block, steps)
    if until_ then
      if now < until_ then
        return {0, 0, until_ - now, until_ - now, 0}
      end
      blocks.hide(key, now)
      -- Quiet for the last step's length since the block ended: back to the first step. A
      -- block set by hand started none.
      if not steps or level == 0 or (level and now >= until_ + steps[#steps]) then
        level = nil
      end
    end
    local reply = decide(key, now, own_args(argv))
    -- A request that can never pass (retry -1: a cost above the limit) says nothing of the
    -- key's rate: it blocks nothing.
    if tonumber(reply[1]) == 0 and block > 0 and tonumber(reply[4]) >= 0 then
      local keep_until = nil
      if steps then
        level = math.min((level or 0) + 1, #steps)
        block = steps[level]
        keep_until = now + block + steps[#steps]
      end
      blocks.write(key, now, now + block, level, keep_until)
      return {0, reply[2], math.max(tonumber(reply[3]), block), math.max(tonumber(reply[4]), block), 0}
    end
    if level then
      -- Allowed between violations: the level is kept until the quiet period ends.
      blocks.write(key, now, until_, level, until_ + steps[#steps])
    end
    return reply
  end
  if not fast then
    return acquire
  end
  return function(key, now, argv)
    return fast(key, argv) or acquire(key, now, argv)
  end
end
