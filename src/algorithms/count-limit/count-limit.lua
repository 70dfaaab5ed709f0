--- @include "../state-ops/prelude.lua"
-- Fixed-window counter. The reasons and limits: count-limit.model.ts.
-- key      the counter (an integer string)
-- now      unused: windows are Redis TTLs, timed by Redis's own clock
-- argv[1]  limit     permits per window
-- argv[2]  periodMs  window length in whole milliseconds
-- argv[3]  permits   taken by this request (integer >= 0; 0 peeks; absent: 1)
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; retryAfter -1 for a
--          request above the limit (it can never pass)
-- TTL      one period from the window's first request; a denial or a peek writes no count;
--          a window longer than one period (written under a longer `period`) is cut to one
local function count_limit(key, now, argv)
  local n = numeric(argv)
  local limit, period_ms, permits = n[1], n[2], n[3] or 1
  local found = tonumber(get_state(key))
  local count, ttl = found or 0, found and state_ttl(key) or 0
  if found and (ttl < 0 or ttl > period_ms) then
    -- Self-healing: a counter without a TTL (a manual SET, a restore) gets one period, and
    -- one written under a longer period is cut to this one: state never outlives its options.
    expire_state(key, period_ms)
    ttl = period_ms
  end
  local remaining = math.max(0, limit - count)
  if permits > limit then
    return {0, remaining, ttl * 1000, -1, 0}
  end
  -- A request of 0 passes only where one of 1 would (it takes nothing).
  if count + math.max(permits, 1) > limit then
    return {0, remaining, ttl * 1000, ttl * 1000, 0}
  end
  if permits == 0 then
    return {1, remaining, ttl * 1000, 0, 0}
  end
  if count == 0 then
    set_state(key, permits, period_ms)
    ttl = period_ms
  else
    incr_state(key, permits)
  end
  return {1, limit - count - permits, ttl * 1000, 0, 0}
end
