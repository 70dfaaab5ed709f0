-- The shared record of one upstream: a server's report applied, the budget read back. The
-- math and its reasons: upstream-learning.model.ts (applyReport is this script's twin).
-- KEYS[1]  the record, a hash: rate, cut, at (the last report), ceil, ceil_until, and b:<server>|<tenant> =
--          '<weight>:<last seen µs>' for each tenant backlogged on a server
-- ARGV     configured rate, successes, throttles, ceiling ('' for none), server, then
--          tenant, weight pairs; the knobs: cut factor, cut gap, floor share, climb share,
--          ceiling life, stale age come first (ARGV[1..6])
-- Reply    {rate, share of each tenant given} as strings (exact doubles)
local key = KEYS[1]
local cut_factor, cut_gap, floor_share = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local climb_share, ceiling_life, stale = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local r0, successes, throttles = tonumber(ARGV[7]), tonumber(ARGV[8]), tonumber(ARGV[9])
local ceiling, server = tonumber(ARGV[10]), ARGV[11]
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

local given = {}
for i = 12, #ARGV, 2 do
  local field = 'b:' .. server .. '|' .. ARGV[i]
  record[field] = ARGV[i + 1] .. ':' .. string.format('%d', now)
  redis.call('HSET', key, field, record[field])
  given[#given + 1] = ARGV[i]
end

local weights, servers, total = {}, {}, 0
for field, value in pairs(record) do
  if string.sub(field, 1, 2) == 'b:' then
    local weight, seen = string.match(value, '^(.-):(%d+)$')
    if now - tonumber(seen) > stale then
      redis.call('HDEL', key, field)
    else
      local tenant = string.sub(field, string.find(field, '|', 3, true) + 1)
      weight = tonumber(weight)
      if not weights[tenant] then
        weights[tenant], servers[tenant] = weight, 1
        total = total + weight
      else
        if weight > weights[tenant] then
          total = total + weight - weights[tenant]
          weights[tenant] = weight
        end
        servers[tenant] = servers[tenant] + 1
      end
    end
  end
end
redis.call('PEXPIRE', key, math.ceil(ceiling_life / 1000))

local reply = {string.format('%.17g', rate)}
for _, tenant in ipairs(given) do
  reply[#reply + 1] = string.format('%.17g', rate * weights[tenant] / total / servers[tenant])
end
return reply
