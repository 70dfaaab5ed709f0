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
  local left = argv[5] ~= '' and (tonumber(argv[5]) or tonumber(string.sub(argv[5], 2)) - redis_micros)
  if count and not (left and math.abs(redis.call('PTTL', key) - left / 1000) * 2 >= period_ms) then
    local rest = count - tonumber(argv[3])
    put_state(key, rest > 0 and rest or nil)
  end
end
