-- The book of one upstream's starts: a token bucket and a fair queue beside it. The math and
-- its reasons: upstream-slots.model.ts (takeSlots, giveBackSlots, pauseSlots and capSlots are
-- this script's twins).
-- KEYS[1]  the book, a hash: tat, pause (µs, Redis's clock), t:<server>|<tenant> = its tag,
--          w:<server>|<tenant> = '<weight>:<held until>' for each waiting entry
-- ARGV     op, rate, capacity, then by op:
--          take  server, max horizon, waiting grace, then per tenant: tenant, weight, n, and
--                n pairs of cost, longest wait (µs)
--                -> {paused, horizon, then per tenant: k, k starts, next} (µs from now)
--          give  cost            pause  µs            cap  left
local key, op = KEYS[1], ARGV[1]
local rate, capacity = tonumber(ARGV[2]), tonumber(ARGV[3])
local slot = 1000000 / rate
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local function put(field, value)
  redis.call('HSET', key, field, string.format('%.17g', value))
end
local function live(until_micros)
  redis.call('PEXPIRE', key, math.ceil((math.max(0, until_micros - now) + 60000000) / 1000))
end

if op == 'give' then
  local tat = tonumber(redis.call('HGET', key, 'tat'))
  if tat then put('tat', tat - tonumber(ARGV[4]) * slot) end
  return 0
elseif op == 'pause' then
  local pause = math.max(tonumber(redis.call('HGET', key, 'pause')) or 0, now + tonumber(ARGV[4]))
  put('pause', pause)
  live(pause)
  return 0
elseif op == 'cap' then
  local left = tonumber(ARGV[4])
  local tat = math.max(tonumber(redis.call('HGET', key, 'tat')) or (now - capacity * slot), now)
  if capacity - (tat - now) / slot > left then put('tat', now + (capacity - math.max(0, left)) * slot) end
  -- A long pause outlives the minute the book lives otherwise.
  live(tonumber(redis.call('HGET', key, 'pause')) or 0)
  return 0
end

local server = ARGV[4]
local horizon = math.min(tonumber(ARGV[5]), math.max(slot, (capacity - 1) * slot / 2))
local grace = tonumber(ARGV[6])
local record = {}
local flat = redis.call('HGETALL', key)
for i = 1, #flat, 2 do
  record[flat[i]] = flat[i + 1]
end

local asks, mine = {}, {}
local i = 7
while i <= #ARGV do
  local ask = {tenant = ARGV[i], weight = tonumber(ARGV[i + 1]), calls = {}}
  local n = tonumber(ARGV[i + 2])
  for c = 1, n do
    ask.calls[c] = {tonumber(ARGV[i + 1 + 2 * c]), tonumber(ARGV[i + 2 + 2 * c])}
  end
  ask.entry = server .. '|' .. ask.tenant
  asks[#asks + 1] = ask
  mine[ask.entry] = true
  i = i + 3 + 2 * n
end

local pause = tonumber(record.pause) or 0
if pause > now then
  local reply = {math.floor(pause - now), math.floor(horizon)}
  for _ = 1, #asks do
    reply[#reply + 1] = 0
    reply[#reply + 1] = -1
  end
  return reply
end

local weights, entries, total, others = {}, {}, 0, 0
local function count(entry, weight)
  local tenant = string.sub(entry, string.find(entry, '|', 1, true) + 1)
  if not weights[tenant] then
    weights[tenant], entries[tenant] = weight, 1
    total = total + weight
  else
    if weight > weights[tenant] then
      total = total + weight - weights[tenant]
      weights[tenant] = weight
    end
    entries[tenant] = entries[tenant] + 1
  end
end
for field, value in pairs(record) do
  local kind, entry = string.sub(field, 1, 2), string.sub(field, 3)
  if kind == 'w:' then
    local weight, held = string.match(value, '^(.-):(.+)$')
    if tonumber(held) < now then
      redis.call('HDEL', key, field)
    elseif not mine[entry] then
      count(entry, tonumber(weight))
      others = others + 1
    end
  elseif kind == 't:' and tonumber(value) < now - horizon then
    redis.call('HDEL', key, field)
    record[field] = nil
  end
end
for _, ask in ipairs(asks) do
  count(ask.entry, ask.weight)
end
local paced = others + #asks > 1

local tat = tonumber(record.tat) or (now - capacity * slot)
local progress = true
for _, ask in ipairs(asks) do
  ask.starts, ask.next, ask.open = {}, -1, true
end
while progress do
  progress = false
  for _, ask in ipairs(asks) do
    if ask.open and #ask.starts < #ask.calls then
      local call = ask.calls[#ask.starts + 1]
      local cost, max_wait = call[1], call[2]
      local tag = math.max(tonumber(record['t:' .. ask.entry]) or (now - horizon), now - horizon)
      local bucket_at = math.max(now, tat + (cost - capacity) * slot)
      local start = bucket_at
      if paced then start = math.max(bucket_at, tag) end
      if start - now > math.min(horizon, max_wait) then
        ask.open = false
        ask.next = start - now
      else
        tat = math.max(tat, start) + cost * slot
        local tenant = ask.tenant
        local spacing = total * entries[tenant] / (rate * weights[tenant])
        record['t:' .. ask.entry] = math.max(tag, start - horizon) + cost * spacing * 1000000
        ask.starts[#ask.starts + 1] = math.floor(start - now)
        progress = true
      end
    end
  end
end
put('tat', tat)
local reply = {0, math.floor(horizon)}
for _, ask in ipairs(asks) do
  if record['t:' .. ask.entry] then put('t:' .. ask.entry, record['t:' .. ask.entry]) end
  if ask.next < 0 then
    redis.call('HDEL', key, 'w:' .. ask.entry)
  else
    redis.call('HSET', key, 'w:' .. ask.entry, ask.weight .. ':' .. string.format('%d', now + ask.next + grace))
  end
  reply[#reply + 1] = #ask.starts
  for _, start in ipairs(ask.starts) do
    reply[#reply + 1] = start
  end
  reply[#reply + 1] = ask.next < 0 and -1 or math.floor(ask.next)
end
live(math.max(pause, tat))
return reply
