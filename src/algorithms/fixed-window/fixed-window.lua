-- Fixed-window counter. The reasons and limits: fixed-window.model.ts.
-- The body of function(key, now, argv), run by the store's engine script (stores/engine).
-- key      the counter: `<count> <window end in µs>` (fixed-window.window.lua)
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  limit     permits per window
-- argv[2]  periodMs  window length in whole milliseconds
-- argv[3]  permits   taken by this request (integer >= 0; 0 peeks; absent: 1)
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; retryAfter -1 for a
--          request above the limit (it can never pass)
-- TTL      one period from the window's first request; a denial or a peek writes no count
local limit = tonumber(argv[1])
local period_ms = tonumber(argv[2])
local permits = tonumber(argv[3]) or 1
--- @include fixed-window.window.lua
local left = 0
if count then
  left = window_end - now
else
  count = 0
end
local remaining = math.max(0, limit - count)
if permits > limit then
  return {0, remaining, left, -1, 0}
end
if count + permits > limit then
  return {0, remaining, left, left, 0}
end
if permits == 0 then
  return {1, remaining, left, 0, 0}
end
if count == 0 then
  window_end = now + period_ms * 1000
  redis.call('SET', key, exact(permits) .. ' ' .. exact(window_end), 'PX', period_ms)
  return {1, limit - permits, period_ms * 1000, 0, 0}
end
redis.call('SET', key, exact(count + permits) .. window_tail, 'KEEPTTL')
return {1, limit - count - permits, left, 0, 0}
