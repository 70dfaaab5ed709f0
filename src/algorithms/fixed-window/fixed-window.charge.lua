-- Fixed-window charge: adds permits to the current window's count whatever the limit (a
-- settled cost above what was reserved, DESIGN §12), keeping the window's end. A count
-- above the limit is the debt: requests are denied until the window ends and repays it.
-- The body of function(key, now, argv): argv[1] limit, argv[2] periodMs, argv[3] permits.
local period_ms = tonumber(argv[2])
local permits = tonumber(argv[3])
--- @include fixed-window.window.lua
if not count then
  window_end = now + period_ms * 1000
  redis.call('SET', key, exact(permits) .. ' ' .. exact(window_end), 'PX', period_ms)
else
  redis.call('SET', key, exact(count + permits) .. window_tail, 'KEEPTTL')
end
return {1, 0, 0, 0, 0}
