--- @include "approximate-sliding-window-limit.roll.lua"
-- Approximate sliding window charge: adds permits to the current window's count whatever
-- the limit (a settled cost above what was reserved). An estimate above the
-- limit is the debt: requests are denied until the count has weighed out (at most the
-- next window). Its arguments: argv[1] limit, argv[2] windowMicros,
-- argv[3] permits. The state rolls forward as the acquire's does.
local function approximate_sliding_window_limit_charge(key, now, argv)
  local window = tonumber(argv[2])
  local index, curr, prev = approximate_roll(key, now, window)
  curr = curr + tonumber(argv[3])
  redis.call('SET', key, exact(index) .. ' ' .. exact(curr) .. ' ' .. exact(prev),
    'PX', ttl_ms((index + 2) * window - now))
  return {1, 0, 0, 0, 0}
end
