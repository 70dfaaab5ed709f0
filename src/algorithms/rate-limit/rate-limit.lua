--- @include "../state-ops/prelude.lua"
--- @include "rate-limit.found.lua"
-- Token bucket with reserve/wait semantics. The math and its reasons: rate-limit.model.ts,
-- including why one number E (when the bucket is empty) holds the whole state.
-- key      the bucket: E, an integer of µs, then `~` and the mark of what wrote it
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  maxPermits       = rate * burst
-- argv[2]  intervalMicros   = 1e6 / rate
-- argv[3]  initialPermits   permits of a new bucket
-- argv[4]  expireMicros     the TTL is never shorter than this
-- argv[5]  fingerprint      of the options, written after E (`E~fingerprint`)
-- argv[6]  permits          requested now (integer >= 0; 0 peeks and writes nothing)
-- argv[7]  timeoutMicros    longest acceptable wait; < 0 waits as long as needed
-- argv[8]  the same timeout, given by a decorator's request (its limit's), else absent
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, waitMicros} as integers:
--          whole permits (rounded down) and whole µs (rounded up), never in the caller's
--          favour; retryAfter -1 when even a full bucket could not serve the permits
--          within the timeout (it can never pass)
-- TTL      max(expire, time until full with nothing reserved)
-- Older    an E written under other options, or by a decorator of another timeout, is cut
--          to this request's at once, and written so (rate-limit.found.lua)
local function rate_limit(key, now, argv)
  local n = numeric(argv)
  local max_permits, interval, expire, permits, timeout = n[1], n[2], n[4], n[6], n[7]
  local full_span = max_permits * interval
  local mark = argv[8] and argv[5] .. ':' .. argv[8] or argv[5]

  -- On the path every request takes, comparisons where math.max would do: a call each less.
  local found = get_state(key)
  local empty_at = now - full_span
  if found then
    local stored, cut
    stored, mark, cut = rate_limit_found(found, now, argv, mark, timeout)
    if cut then
      set_state(key, string.format('%d', stored) .. '~' .. mark, ttl_ms(math.max(expire, stored + full_span - now)))
    end
    if stored > empty_at then
      empty_at = stored
    end
  else
    empty_at = now - n[3] * interval
  end
  -- A request of 0 passes only where one of 1 would (it takes nothing).
  local need = permits > 1 and permits or 1
  local wait = empty_at + need * interval - now
  if wait < 0 then
    wait = 0
  end

  if timeout >= 0 and wait > timeout then
    local until_full = empty_at + full_span - now
    local retry_after = math.ceil(wait - timeout)
    if need * interval - full_span > timeout then
      retry_after = -1
    elseif not found then
      -- A new bucket's refill clock must start now, or one that starts empty never fills.
      set_state(key, string.format('%d', math.ceil(empty_at)) .. '~' .. mark, ttl_ms(math.max(expire, until_full)))
    end
    return {0, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(until_full), retry_after, 0}
  end
  if permits == 0 then
    return {1, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(empty_at + full_span - now), 0, math.ceil(wait)}
  end

  empty_at = math.ceil(empty_at + permits * interval)
  local until_full = empty_at + full_span - now
  set_state(key, string.format('%d', empty_at) .. '~' .. mark, ttl_ms(expire > until_full and expire or until_full))
  local left = (now - empty_at) / interval
  return {1, left > 0 and math.floor(left) or 0, math.ceil(until_full), 0, wait > 0 and math.ceil(wait) or 0}
end
