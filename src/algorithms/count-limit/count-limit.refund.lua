--- @include "../state-ops/prelude.lua"
-- Fixed-window refund: takes permits off the count of the window the acquire counted in,
-- never below 0 (a count of 0 is deleted: it decides as no key does), never in a newer
-- window. Reasons: state-ops.model.ts. Its arguments:
-- argv[1] limit, argv[2] periodMs, argv[3] permits, argv[4] unused, argv[5] the
-- acquire's window: its reset minus the time since, in µs; or '@' and the window's end on
-- Redis's clock, in µs (a lease's give-back: however late it is sent, it names its window);
-- or '' for the current window.
-- Windows end at least a period apart, so the acquire's window is this one when its end
-- is within half a period of this key's.
local function count_limit_refund(key, now, argv)
  local period_ms = tonumber(argv[2])
  local count = tonumber(get_state(key))
  if not count then
    return {1, 0, 0, 0, 0}
  end
  if argv[5] ~= '' then
    local left = tonumber(argv[5]) or tonumber(string.sub(argv[5], 2)) - redis_micros
    if math.abs(redis.call('PTTL', key) - left / 1000) * 2 >= period_ms then
      return {1, 0, 0, 0, 0}
    end
  end
  local left = count - tonumber(argv[3])
  if left <= 0 then
    redis.call('DEL', key)
  else
    redis.call('SET', key, left, 'KEEPTTL')
  end
  return {1, 0, 0, 0, 0}
end
