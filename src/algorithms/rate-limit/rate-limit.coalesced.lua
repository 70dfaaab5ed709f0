--- @include "../../stores/redis/engine/prelude.lua"
-- Requests of one token bucket decided in a row, as rate-limit.lua decides each, with one
-- read and one write (state-ops/coalesced.lua calls it): waiters get successive slots.
-- argv      the bucket's own: maxPermits, intervalMicros, initialPermits, expireMicros,
--           fingerprint (an E written under other options is cut as rate-limit.lua cuts it,
--           by the first request's timeout)
-- requests  each request's fields: {permits, timeoutMicros, decorator's timeout or none};
--           requests of decorators of other timeouts, or of none, are not decided together
-- stop      stop at the first denial that can start a block (not one that can never pass)
-- Returns   the replies, and the index where it stopped
local function rate_limit_coalesced(key, now, argv, requests, stop)
  local max_permits = tonumber(argv[1])
  local interval = tonumber(argv[2])
  local expire = tonumber(argv[4])
  local full_span = max_permits * interval
  local reach = requests[1][3]
  for i = 2, #requests do
    if requests[i][3] ~= reach then
      return nil
    end
  end
  local mark = reach and argv[5] .. ':' .. reach or argv[5]
  local found = get_state(key)
  local empty_at
  -- The value rate-limit.lua would have written last, and its TTL; the next request reads it.
  local written, written_ttl = nil, nil
  if found then
    local stored, cut
    stored, mark, cut = rate_limit_found(found, now, argv, mark, tonumber(requests[1][2]))
    if cut then
      written, written_ttl = stored, ttl_ms(math.max(expire, stored + full_span - now))
    end
    empty_at = math.max(stored, now - full_span)
  else
    empty_at = now - tonumber(argv[3]) * interval
  end
  local replies, stopped = {}, nil
  for i = 1, #requests do
    local permits = tonumber(requests[i][1])
    local timeout = tonumber(requests[i][2])
    -- A request of 0 passes only where one of 1 would (it takes nothing).
    local need = math.max(permits, 1)
    local wait = math.max(now, empty_at + need * interval) - now
    if timeout >= 0 and wait > timeout then
      local until_full = empty_at + full_span - now
      local retry_after = math.ceil(wait - timeout)
      replies[i] = {0, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(until_full), retry_after, 0}
      if need * interval - full_span > timeout then
        replies[i][4] = -1
      elseif not found then
        found = true
        written, written_ttl = math.ceil(empty_at), ttl_ms(math.max(expire, until_full))
        empty_at = math.max(written, now - full_span)
      end
      if stop and replies[i][4] >= 0 then
        stopped = i
        break
      end
    elseif permits == 0 then
      replies[i] = {1, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(empty_at + full_span - now), 0, math.ceil(wait)}
    else
      found = true
      empty_at = math.ceil(empty_at + permits * interval)
      local until_full = empty_at + full_span - now
      written, written_ttl = empty_at, ttl_ms(math.max(expire, until_full))
      replies[i] = {1, math.floor(math.max(0, (now - empty_at) / interval)), math.ceil(until_full), 0, math.ceil(wait)}
      empty_at = math.max(empty_at, now - full_span)
    end
  end
  if written then
    redis.call('SET', key, exact(written) .. '~' .. mark, 'PX', written_ttl)
  end
  return replies, stopped
end
