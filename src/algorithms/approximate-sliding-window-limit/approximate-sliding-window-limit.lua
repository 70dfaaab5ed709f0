--- @include "approximate-sliding-window-limit.roll.lua"
-- Approximate sliding window (sliding window counter). The math and its reasons:
-- approximate-sliding-window-limit.model.ts.
-- key      the state: "<index> <curr> <prev>" (window index, its count, the previous count)
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  limit         requests allowed within a window (integer >= 1)
-- argv[2]  windowMicros  window length in whole µs
-- argv[3]  permits       taken by this request (integer >= 0; 0 peeks)
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; retryAfter -1 for a
--          request above the limit (it can never pass)
-- TTL      until the end of the next window, set when allowed; a denial or a peek writes nothing
local function approximate_sliding_window_limit(key, now, argv)
  local n = numeric(argv)
  local limit, window, permits = n[1], n[2], n[3]
  local index, curr, prev, index_text, prev_text = approximate_roll(key, now, window)
  local elapsed = now - index * window
  local used = prev * (window - elapsed) + curr * window
  -- The usual decision first: a request that fits (one above the limit never does).
  if permits > 0 and used + permits * window <= limit * window then
    local reset = (index + 2) * window - now
    -- The roll's TTL: ttl_ms without its floor of 1 (the next window's end is a window away).
    set_state(key, string.format('%s %d %s', index_text, curr + permits, prev_text), roll_ttl)
    return {1, math.floor((limit * window - used - permits * window) / window), reset, 0, 0}
  end
  -- The reset of a decision that writes nothing: when the counts stop weighing.
  local reset_as_is = 0
  if curr > 0 then
    reset_as_is = (index + 2) * window - now
  elseif prev > 0 then
    reset_as_is = (index + 1) * window - now
  end
  local remaining_as_is = math.max(0, math.floor((limit * window - used) / window))
  if permits > limit then
    return {0, remaining_as_is, reset_as_is, -1, 0}
  end
  if permits == 0 and used + window <= limit * window then
    return {1, remaining_as_is, reset_as_is, 0, 0}
  end
  -- A request of 0 without room for one is denied as one of 1 would be (it takes nothing).
  permits = math.max(permits, 1)

  -- Room once the previous count has weighed out enough, or else in the next window.
  if curr + permits <= limit then
    return {0, remaining_as_is, reset_as_is, first_elapsed_with_room(prev, limit - curr - permits, window) - elapsed, 0}
  end
  return {0, remaining_as_is, reset_as_is, window - elapsed + first_elapsed_with_room(curr, limit - permits, window), 0}
end
