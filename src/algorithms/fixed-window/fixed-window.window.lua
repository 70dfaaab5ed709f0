-- The window a counter key holds, included (`--- @include`) by the acquire, the refund and
-- the charge. The value is `<count> <window end in µs>`: the end travels with the count, so
-- a decision is one GET and at most one write, never a PTTL. A plain integer is a counter
-- written before the end was kept (it lives until its TTL runs out, through an upgrade):
-- its end comes from PTTL, and the next write stores the end with the count. A counter
-- without a TTL (a manual SET, a restore) gets one period again: it never blocks forever.
-- `period_ms` is set before it; it sets `count` (nil: no window), `window_end` (µs) and
-- `window_tail`, what follows the count in the value (' ' and the end), kept as read: a
-- write of the same window does not format the end again.
local count, window_end, window_tail = nil, nil, nil
local found = get_state(key)
if found then
  local space = string.find(found, ' ', 1, true)
  if space then
    count, window_end = tonumber(string.sub(found, 1, space - 1)), tonumber(string.sub(found, space + 1))
    window_tail = string.sub(found, space)
    if not window_end or window_end <= now then
      count = nil
    end
  else
    count = tonumber(found)
    local pttl = redis.call('PTTL', key)
    if pttl < 0 then
      redis.call('PEXPIRE', key, period_ms)
      pttl = period_ms
    end
    window_end = now + pttl * 1000
    window_tail = ' ' .. exact(window_end)
  end
end

