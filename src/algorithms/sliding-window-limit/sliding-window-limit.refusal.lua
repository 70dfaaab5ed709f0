--- @include "../state-ops/prelude.lua"
-- A request the log does not simply take (sliding-window-limit.model.ts): one above the limit,
-- a peek, or a denial with the time until it fits. The acquire and its coalesced form answer
-- it so, on the log as read (ZRANGE ... WITHSCORES, oldest first, members before `first`
-- gone) and the weight `count` in the window.
local function sliding_window_refusal(log, first, count, limit, window, now, permits)
  local remaining = math.max(0, limit - count)
  local reset = 0
  if #log > first then
    reset = tonumber(log[#log]) + window - now
  end
  if permits > limit then
    return {0, remaining, reset, -1, 0}
  end
  -- A request of 0 passes only where one of 1 would (it takes nothing).
  local need = math.max(permits, 1)
  if permits == 0 and count + need <= limit then
    return {1, remaining, reset, 0, 0}
  end
  -- The request that must leave before this one fits: oldest first, until enough weight has
  -- gone (the oldest for a request of 1 when count == limit).
  local freed = 0
  for i = first, #log, 2 do
    freed = freed + member_weight(log[i])
    if count - freed + need <= limit then
      return {0, remaining, reset, tonumber(log[i + 1]) + window - now, 0}
    end
  end
end
