--- @include "../state-ops/prelude.lua"
-- Calendar quota. The reasons and limits: quota-limit.model.ts.
-- key      the cycle's state: '<cycle start ms, base 36>:<used>[:<credit>][s]', `s` once the
--          soft limit is reached (short: a key of 40 characters stays within 120 bytes)
-- now      Redis's time in µs: it picks the cycle
-- argv[1]  limit            permits per cycle
-- argv[2]  softLimit        usage that fires the soft limit, 0 for none
-- argv[3]  windowMs         longest memory of an idempotency key
-- argv[4]  permits          taken by this request (0: usage, writes nothing)
-- argv[5..8]                the previous cycle's start, this one's, its end, the next one's
--                           end (epoch ms), around the app's clock
-- argv[9]  credit           added to this cycle's allowance (0: none)
-- argv[10] idempotency key  '' for none
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, used * 4 + flags}: flags 1 the
--          soft limit was reached by this request, 2 a repeat of a charged idempotency key
-- TTL      the cycle's end; an idempotency key's: the cycle's end or windowMs, the sooner
-- Undone   the idempotency key a charge remembers is the entry's created_key (prelude.lua):
--          a group whose other limit denies deletes it with the charge
local function quota_limit(key, now, argv)
  local n = numeric(argv)
  local limit, soft, window, permits = n[1], n[2], n[3], n[4]
  local start, finish
  if now >= n[7] * 1000 then
    start, finish = n[7], n[8]
  elseif now >= n[6] * 1000 then
    start, finish = n[6], n[7]
  elseif now >= n[5] * 1000 then
    start, finish = n[5], n[6]
  end
  if not start or now >= finish * 1000 then
    error('quota: the cycles sent do not hold Redis time ' .. now)
  end
  local reset = finish * 1000 - now
  local used, credit, reached = 0, 0, 0
  local value = get_state(key)
  if value then
    local s, u, c, r = string.match(value, '^(%w+):(%d+):?(%d*)(s?)$')
    if s and tonumber(s, 36) == start then
      used, credit, reached = tonumber(u), tonumber(c) or 0, r == 's' and 1 or 0
    end
  end
  local remembered = nil
  if argv[10] ~= '' then
    -- In the key's hash slot: its own hash tag, else the whole key as one.
    local open = string.find(key, '{', 1, true)
    local close = open and string.find(key, '}', open + 1, true)
    local tag = (close and close > open + 1) and key or '{' .. key .. '}'
    remembered = tag .. ':' .. start .. ':' .. argv[10]
    local first = redis.call('GET', remembered)
    if first then
      local r, u = string.match(first, '^(%d+):(%d+)$')
      return {1, tonumber(r), reset, 0, tonumber(u) * 4 + 2}
    end
  end
  local allowance = limit + credit
  local function save()
    local digits, rest, stamp = '0123456789abcdefghijklmnopqrstuvwxyz', start, ''
    repeat
      local digit = rest % 36
      stamp = string.sub(digits, digit + 1, digit + 1) .. stamp
      rest = (rest - digit) / 36
    until rest == 0
    local state = stamp .. ':' .. string.format('%d', used)
    if credit > 0 then
      state = state .. ':' .. string.format('%d', credit)
    end
    if reached == 1 then
      state = state .. 's'
    end
    redis.call('SET', key, state, 'PX', ttl_ms(reset))
  end
  if n[9] > 0 then
    credit = credit + n[9]
    save()
    return {1, allowance + n[9] - used, reset, 0, used * 4}
  end
  if used + math.max(permits, 1) > allowance then
    return {0, math.max(0, allowance - used), reset, permits > limit and -1 or reset, used * 4}
  end
  if permits == 0 then
    return {1, allowance - used, reset, 0, used * 4}
  end
  local flags = 0
  used = used + permits
  if soft > 0 and reached == 0 and used >= soft then
    reached, flags = 1, 1
  end
  save()
  if remembered then
    redis.call('SET', remembered, (allowance - used) .. ':' .. used, 'PX', math.max(1, math.min(ttl_ms(reset), window)))
    -- A group that gives this charge back (another limit denied) forgets the key with it.
    created_key = remembered
  end
  return {1, allowance - used, reset, 0, used * 4 + flags}
end
