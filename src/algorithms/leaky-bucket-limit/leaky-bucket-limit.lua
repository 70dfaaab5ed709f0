--- @include "../state-ops/prelude.lua"
-- Leaky bucket as GCRA (redis-cell's CL.THROTTLE with its quantity). The math:
-- leaky-bucket-limit.model.ts.
-- key      the theoretical arrival time (tat) in µs, then `~` and the options' fingerprint
-- now      the time in µs (Redis TIME, or the store's injected clock)
-- argv[1]  capacity        requests that may arrive at once (integer >= 1)
-- argv[2]  intervalMicros  T = 1 / rate, whole µs
-- argv[3]  fingerprint     of the options, written after the tat (`tat~fingerprint`)
-- argv[4]  permits         the request's quantity (integer >= 0; 0 peeks; absent: 1)
-- Reply    {allowed, remaining, resetMicros, retryAfterMicros, 0}; retryAfter -1 for a
--          quantity above the capacity (it can never pass)
-- TTL      newTat - now after an allowed request; a denial or a peek writes nothing
-- Older    a tat written under other options beyond now + tau is cut to it at once, and
--          written so (leaky-bucket-limit.model.ts)
local function leaky_bucket_limit(key, now, argv)
  local n = numeric(argv)
  local capacity, interval, permits = n[1], n[2], n[4] or 1
  local tolerance = interval * capacity
  local mark = '~' .. argv[3]

  local tat = now
  local stored = get_state(key)
  if stored then
    local moment, same = moment_of(stored, argv[3])
    tat = math.max(now, moment)
    if not same and tat > now + tolerance then
      tat = now + tolerance
      set_state(key, exact(tat) .. mark, ttl_ms(tolerance))
    end
  end

  if permits > capacity then
    return {0, permits_in(tolerance - (tat - now), interval), tat - now, -1, 0}
  end
  -- A request of 0 passes only where one of 1 would (it takes nothing).
  local new_tat = tat + math.max(permits, 1) * interval
  local allow_at = new_tat - tolerance
  if now < allow_at then
    return {0, permits_in(tolerance - (tat - now), interval), tat - now, allow_at - now, 0}
  end
  if permits == 0 then
    return {1, permits_in(tolerance - (tat - now), interval), tat - now, 0, 0}
  end

  local reset = new_tat - now
  set_state(key, string.format('%d', new_tat) .. mark, ttl_ms(reset))
  return {1, permits_in(tolerance - reset, interval), reset, 0, 0}
end
