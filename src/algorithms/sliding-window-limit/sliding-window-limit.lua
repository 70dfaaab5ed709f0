--- @include "../state-ops/prelude.lua"
-- Sliding-window log. The math and its reasons: sliding-window-limit.model.ts.
-- key      the log: a zset, one member per allowed request (its id, with its weight when
--          above 1: the prelude's weighted_member), score = request time in µs
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  limit         permits allowed within any window (integer >= 1)
-- argv[2]  windowMicros  window length in whole µs
-- argv[3]  id            unique per request (a UUID), so members never collide and a
--                        refund can remove its own
-- argv[4]  permits       the request's weight (integer >= 0; 0 peeks; absent: 1)
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; retryAfter -1 for a
--          request above the limit (it can never pass)
-- TTL      window, set on each allowed request; a denial or a peek keeps it
local function sliding_window_limit(key, now, argv)
  local limit, window, permits = tonumber(argv[1]), tonumber(argv[2]), tonumber(argv[4]) or 1

  -- At most `limit` members in the window (each weighs at least 1): reading them all is
  -- O(limit); those that left the window are dropped.
  local log, first, count = window_of(key, now - window)
  -- The usual decision first: a request that fits (one above the limit never does). ttl_ms
  -- without its floor of 1: a window is at least 1 µs.
  if permits > 0 and count + permits <= limit then
    add_member(key, string.format('%d', now), weighted_member(argv[3], permits), permits, math.ceil(window / 1000))
    return {1, limit - count - permits, window, 0, 0}
  end
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
