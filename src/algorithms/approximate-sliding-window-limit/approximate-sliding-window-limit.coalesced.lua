--- @include "../../stores/redis/engine/prelude.lua"
-- Requests of one approximate sliding window decided in a row, as
-- approximate-sliding-window-limit.lua decides each, with one read and one write
-- (state-ops/coalesced.lua calls it). An allowed request is counted here; any other writes
-- nothing, so the acquire itself (limiterApproximateSlidingWindowLimit) answers it on the
-- counts as they stand, once per number of permits while they stay so.
-- argv      the window's own: limit, windowMicros
-- requests  each request's fields: {permits}
-- stop      stop at the first denial that can start a block (not a cost above the limit)
-- Returns   the replies, and the index where it stopped
local function approximate_sliding_window_limit_coalesced(key, now, argv, requests, stop)
  local limit = tonumber(argv[1])
  local window = tonumber(argv[2])
  local index, curr, prev = approximate_roll(key, now, window)
  local elapsed = now - index * window
  local reset = (index + 2) * window - now
  local unwritten = false
  local function write()
    redis.call('SET', key, exact(index) .. ' ' .. exact(curr) .. ' ' .. exact(prev), 'PX', ttl_ms(reset))
    unwritten = false
  end
  local answered = {}
  local replies, stopped = {}, nil
  for i = 1, #requests do
    local permits = tonumber(requests[i][1])
    local used = prev * (window - elapsed) + curr * window
    if permits > 0 and permits <= limit and used + permits * window <= limit * window then
      curr = curr + permits
      unwritten = true
      answered = {}
      replies[i] = {1, math.floor((limit * window - used - permits * window) / window), reset, 0, 0}
    else
      if unwritten then
        write()
      end
      local reply = answered[permits]
      if not reply then
        forget_state()
        reply = limiterApproximateSlidingWindowLimit(key, now, {argv[1], argv[2], requests[i][1]})
        answered[permits] = reply
      end
      replies[i] = reply
      if stop and tonumber(reply[1]) == 0 and tonumber(reply[4]) >= 0 then
        stopped = i
        break
      end
    end
  end
  if unwritten then
    write()
  end
  return replies, stopped
end
