--- @include "../state-ops/prelude.lua"
-- Requests of one sliding-window log decided in a row, as sliding-window-limit.lua decides
-- each, with one read of the log and one ZADD of every allowed request's member
-- (state-ops/coalesced.lua calls it). Exact while every request's id is new: a request whose
-- id is already logged, or given twice, makes it return nil, and the requests are then
-- decided one by one.
-- argv      the log's own: limit, windowMicros
-- requests  each request's fields: {id} or {id, permits}
-- stop      stop at the first denial that can start a block (not a cost above the limit)
-- Returns   the replies, and the index where it stopped; or nil
local function sliding_window_limit_coalesced(key, now, argv, requests, stop)
  local limit = tonumber(argv[1])
  local window = tonumber(argv[2])
  local log = get_members(key)
  local first = drop_scored_up_to(key, log, now - window)
  local count = 0
  local ids = {}
  for i = first, #log, 2 do
    count = count + member_weight(log[i])
    ids[string.match(log[i], '^(.-)%z%d+$') or log[i]] = true
  end
  for i = 1, #requests do
    local id = requests[i][1]
    if ids[id] then
      return nil
    end
    ids[id] = true
  end
  local reset = 0
  if #log > first then
    reset = tonumber(log[#log]) + window - now
  end
  -- Every allowed request's score and member, for one ZADD; the same appended to `log`, whose
  -- oldest-first order a later denial's retry reads (members scored alike give one retry).
  local added = {}
  local replies, stopped = {}, nil
  for i = 1, #requests do
    local permits = tonumber(requests[i][2]) or 1
    local remaining = math.max(0, limit - count)
    if permits > limit then
      replies[i] = {0, remaining, reset, -1, 0}
    -- A request of 0 passes only where one of 1 would (it takes nothing).
    elseif count + math.max(permits, 1) <= limit then
      if permits == 0 then
        replies[i] = {1, remaining, reset, 0, 0}
      else
        local member = weighted_member(requests[i][1], permits)
        added[#added + 1] = exact(now)
        added[#added + 1] = member
        log[#log + 1] = member
        log[#log + 1] = exact(now)
        count = count + permits
        reset = window
        replies[i] = {1, limit - count, window, 0, 0}
      end
    else
      local freed = 0
      for j = first, #log, 2 do
        freed = freed + member_weight(log[j])
        if count - freed + math.max(permits, 1) <= limit then
          replies[i] = {0, remaining, reset, tonumber(log[j + 1]) + window - now, 0}
          break
        end
      end
      if stop then
        stopped = i
        break
      end
    end
  end
  if #added > 0 then
    redis.call('ZADD', key, unpack(added))
    redis.call('PEXPIRE', key, ttl_ms(window))
  end
  return replies, stopped
end
