-- Token bucket with reserve/wait semantics. The math and its reasons: token-bucket.model.ts.
-- KEYS[1]  the bucket: a string "<stored> <nextFreeMicros>"
-- ARGV[1]  now in µs, or '' for Redis TIME (prelude)
-- ARGV[2]  maxPermits       = rate * burst
-- ARGV[3]  intervalMicros   = 1e6 / rate
-- ARGV[4]  initialPermits   permits of a new bucket
-- ARGV[5]  expireMicros     the TTL is never shorter than this
-- ARGV[6]  permits          requested now (integer >= 1)
-- ARGV[7]  timeoutMicros    longest acceptable wait; < 0 waits as long as needed
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, waitMicros}
-- TTL      max(expire, time until full with nothing reserved)
local now = now_micros()
local max_permits = tonumber(ARGV[2])
local interval = tonumber(ARGV[3])
local expire = tonumber(ARGV[5])
local permits = tonumber(ARGV[6])
local timeout = tonumber(ARGV[7])

local stored, next_free
local found = redis.call('GET', KEYS[1])
if found then
  local s, n = string.match(found, '^(%S+) (%S+)$')
  stored, next_free = tonumber(s), tonumber(n)
else
  stored, next_free = tonumber(ARGV[4]), now
end

if now > next_free then
  stored = math.min(max_permits, stored + (now - next_free) / interval)
  next_free = now
end
local earliest = next_free + math.max(0, permits - stored) * interval
local wait = earliest - now

if timeout >= 0 and wait > timeout then
  local until_full = (next_free - now) + (max_permits - stored) * interval
  if not found then
    -- A new bucket's refill clock must start now, or one that starts empty never fills.
    redis.call('SET', KEYS[1], exact(stored) .. ' ' .. exact(next_free), 'PX', ttl_ms(math.max(expire, until_full)))
  end
  return {0, exact(stored), exact(until_full), exact(wait - timeout), '0'}
end

stored = stored - math.min(permits, stored)
next_free = earliest
local until_full = (next_free - now) + (max_permits - stored) * interval
redis.call('SET', KEYS[1], exact(stored) .. ' ' .. exact(next_free), 'PX', ttl_ms(math.max(expire, until_full)))
return {1, exact(stored), exact(until_full), '0', exact(wait)}
