-- Token bucket with reserve/wait semantics. The math and its reasons: token-bucket.model.ts,
-- including why one number E (when the bucket is empty) holds the whole state.
-- KEYS[1]  the bucket: E, an integer of µs
-- ARGV[1]  now in µs, or '' for Redis TIME (prelude)
-- ARGV[2]  maxPermits       = rate * burst
-- ARGV[3]  intervalMicros   = 1e6 / rate
-- ARGV[4]  initialPermits   permits of a new bucket
-- ARGV[5]  expireMicros     the TTL is never shorter than this
-- ARGV[6]  permits          requested now (integer >= 1)
-- ARGV[7]  timeoutMicros    longest acceptable wait; < 0 waits as long as needed
-- ARGV[8]  'refund' to give `permits` back (a caller that left while waiting), else absent
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, waitMicros} as integers:
--          whole permits (rounded down) and whole µs (rounded up), never in the caller's favour
-- TTL      max(expire, time until full with nothing reserved)
local now = now_micros()
local max_permits = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local expire = tonumber(ARGV[5])
local permits = tonumber(ARGV[6])
local timeout = tonumber(ARGV[7])
local full_span = max_permits * interval

local found = redis.call('GET', KEYS[1])
if ARGV[8] == 'refund' then
  -- The model's "Giving a reservation back"; a bucket with no state has nothing to give back.
  local back
  if found then
    local floor_at = now - full_span
    back = math.ceil(math.max(math.max(tonumber(found), floor_at) - permits * interval, floor_at))
    redis.call('SET', KEYS[1], exact(back), 'PX', ttl_ms(math.max(expire, back + full_span - now)))
  else
    back = now - tonumber(ARGV[4]) * interval
  end
  return {1, math.floor(math.max(0, (now - back) / interval)), math.ceil(back + full_span - now), 0, 0}
end
local empty_at
if found then
  empty_at = math.max(tonumber(found), now - full_span)
else
  empty_at = now - tonumber(ARGV[4]) * interval
end
local earliest = math.max(now, empty_at + permits * interval)
local wait = earliest - now

if timeout >= 0 and wait > timeout then
  local until_full = empty_at + full_span - now
  if not found then
    -- A new bucket's refill clock must start now, or one that starts empty never fills.
    redis.call('SET', KEYS[1], exact(math.ceil(empty_at)), 'PX', ttl_ms(math.max(expire, until_full)))
  end
  return {0, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(until_full), math.ceil(wait - timeout), 0}
end

empty_at = math.ceil(empty_at + permits * interval)
local until_full = empty_at + full_span - now
redis.call('SET', KEYS[1], exact(empty_at), 'PX', ttl_ms(math.max(expire, until_full)))
return {1, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(until_full), 0, math.ceil(wait)}
