--- @include "sliding-window-limit.refusal.lua"
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
  -- Every allowed request's score and member, for one ZADD; the same appended to `log`, whose
  -- oldest-first order and last score a later refusal reads (members scored alike give one
  -- retry).
  local added = {}
  local replies, stopped = {}, nil
  for i = 1, #requests do
    local permits = tonumber(requests[i][2]) or 1
    if permits > 0 and count + permits <= limit then
      local member = weighted_member(requests[i][1], permits)
      added[#added + 1] = exact(now)
      added[#added + 1] = member
      log[#log + 1] = member
      log[#log + 1] = exact(now)
      count = count + permits
      replies[i] = {1, limit - count, window, 0, 0}
    else
      replies[i] = sliding_window_refusal(log, first, count, limit, window, now, permits)
      if stop and replies[i][1] == 0 and replies[i][4] >= 0 then
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
