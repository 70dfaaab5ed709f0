-- The shared record of one upstream: a server's report applied, the budget read back. The
-- math and its reasons: upstream-learning.model.ts (applyReport is this script's twin).
-- KEYS[1]  the record, a hash: rate, cut, at (the last report), ceil, ceil_until
-- ARGV     the knobs: cut factor, cut gap, floor share, climb share, ceiling life
--          (ARGV[1..5]); then configured rate, successes, throttles, ceiling ('' for none)
-- Reply    the rate, as a string (an exact double)
local key = KEYS[1]
local cut_factor, cut_gap, floor_share = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local climb_share, ceiling_life = tonumber(ARGV[4]), tonumber(ARGV[5])
local r0, successes, throttles = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
local ceiling = tonumber(ARGV[9])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])

local record = {}
local flat = redis.call('HGETALL', key)
for i = 1, #flat, 2 do
  record[flat[i]] = flat[i + 1]
end

if ceiling then
  record.ceil = ceiling
  record.ceil_until = now + ceiling_life
  redis.call('HSET', key, 'ceil', string.format('%.17g', ceiling), 'ceil_until', string.format('%d', now + ceiling_life))
end
local top = r0
local ceil = tonumber(record.ceil)
if ceil and tonumber(record.ceil_until) > now then
  top = math.min(r0, math.max(ceil, r0 * floor_share))
end
local rate = tonumber(record.rate) or r0
local cut_at = tonumber(record.cut)
if throttles > 0 and (not cut_at or now - cut_at >= cut_gap) then
  rate = math.max(r0 * floor_share, rate * cut_factor)
  redis.call('HSET', key, 'cut', string.format('%d', now))
elseif successes > 0 and record.at then
  rate = rate + r0 * climb_share * math.min(1000000, math.max(0, now - tonumber(record.at))) / 1000000
end
redis.call('HSET', key, 'at', string.format('%d', now))
rate = math.min(rate, top)
redis.call('HSET', key, 'rate', string.format('%.17g', rate))

redis.call('PEXPIRE', key, math.ceil(ceiling_life / 1000))
return string.format('%.17g', rate)
