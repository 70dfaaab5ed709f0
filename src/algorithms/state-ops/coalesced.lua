--- @include "prelude.lua"
--- @include "blockable.lua"
-- n decisions of one limit on one key at once (stores/redis/engine/coalescing.ts), answered
-- as n entries of the acquire with blocks (blockable.lua) would answer them, one after
-- another at the same `now`, with one read and one write of the key instead of n of each.
-- coalesced_of(decide, blocks) is the coalesced acquire's function (key, now, argv), where
-- decide      the algorithm's function: run once per request against the prelude's
--             write-back cell on the key (one read, one write; a log's: one ZADD)
-- blocks      where the state type keeps a block (string_block, zset_block)
-- argv        the limit's argv (the block, then the algorithm's own), then per request the
--             count of its fields and its fields, then n, then the count of the limit's argv
-- Reply       one string: the n replies as the engine formats an entry's, each ended by NUL
--             but the last (engine.lua joins the entries' fields with NUL)
-- A key holding a block, and escalating blocks (steps), are run one by one: exact by
-- construction, and rare (a blocked key is answered by the denial cache).

-- `decide` run on each request in turn against the cell: the same commands, read once and
-- written once. When `stop`, it stops at the first denial that can start a block, the state
-- written as the requests before it left it. nil, written nothing, for requests a log's cell
-- cannot follow (a member logged again: add_member).
local function decide_in_cell(decide, blocks, key, now, own, requests, stop)
  local replies, stopped = {}, nil
  open_cell(key, blocks.zset)
  local ok, err = pcall(function()
    for i = 1, #requests do
      local reply = decide(key, now, args_of(own, 1, #own, requests[i]))
      replies[i] = reply
      if stop and tonumber(reply[1]) == 0 and tonumber(reply[4]) >= 0 then
        stopped = i
        break
      end
    end
  end)
  close_cell(ok)
  if err == cell_conflict then
    return nil
  elseif not ok then
    error(err, 0)
  end
  return replies, stopped
end

local function coalesced_of(decide, blocks)
  local one = blockable_acquire(decide, blocks)
  return function(key, now, argv)
    local params = tonumber(argv[#argv]) - 1
    local n = tonumber(argv[#argv - 1])
    local requests, pos = {}, params + 2
    for i = 1, n do
      local count = tonumber(argv[pos])
      requests[i] = args_of(argv, pos + 1, pos + count)
      pos = pos + count + 1
    end
    -- Each request as an entry of its own: the acquire with blocks, on a fresh read.
    local function one_by_one()
      local replies = {}
      for i = 1, n do
        forget_state()
        replies[i] = one(key, now, args_of(argv, 1, params + 1, requests[i]))
      end
      return replies
    end
    local replies, stopped = {}, nil
    local block = tonumber(argv[1])
    local until_ = nil
    if block then
      until_ = current_block(blocks, key, now, block)
    end
    if until_ and now < until_ then
      for i = 1, n do
        replies[i] = {0, 0, until_ - now, until_ - now, 0}
      end
    elseif not block or until_ then
      replies = one_by_one()
    else
      local own = args_of(argv, 2, params + 1)
      replies, stopped = decide_in_cell(decide, blocks, key, now, own, requests, block > 0)
      -- nil: the cell cannot decide these requests together (a log's repeated member).
      if not replies then
        replies = one_by_one()
      end
    end
    if stopped then
      -- As blockable.lua after the denial; the requests after it find the key blocked.
      blocks.write(key, now, now + block)
      local reply = replies[stopped]
      replies[stopped] = {0, reply[2], math.max(tonumber(reply[3]), block), math.max(tonumber(reply[4]), block), 0}
      for i = stopped + 1, n do
        replies[i] = {0, 0, block, block, 0}
      end
    end
    local out = {}
    for i = 1, n do
      local reply = replies[i]
      out[i] = string.format('%d,%d,%d,%d,%d', reply[1], reply[2], reply[3], reply[4], reply[5])
    end
    return table.concat(out, '\0')
  end
end
