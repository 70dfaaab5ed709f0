--- @include "../../stores/redis/engine/prelude.lua"
-- Requests of one leaky bucket (GCRA) decided in a row, as leaky-bucket-limit.lua decides
-- each, with one read and one write (state-ops/coalesced.lua calls it).
-- argv      the bucket's own: capacity, intervalMicros, fingerprint (a tat written under
--           other options is cut as leaky-bucket-limit.lua cuts it)
-- requests  each request's fields: {permits} or {} for 1
-- stop      stop at the first denial that can start a block (not a quantity above capacity)
-- Returns   the replies, and the index where it stopped
local function leaky_bucket_limit_coalesced(key, now, argv, requests, stop)
  local capacity = tonumber(argv[1])
  local interval = tonumber(argv[2])
  local tolerance = interval * capacity
  local tat = now
  local written = nil
  local stored = get_state(key)
  if stored then
    local moment, same = moment_of(stored, argv[3])
    tat = math.max(now, moment)
    if not same and tat > now + tolerance then
      tat = now + tolerance
      written = exact(tat)
    end
  end
  local function permits_left(reset)
    return math.max(0, math.floor((tolerance - reset) / interval))
  end
  local replies, stopped = {}, nil
  for i = 1, #requests do
    local permits = tonumber(requests[i][1]) or 1
    -- A request of 0 passes only where one of 1 would (it takes nothing).
    local new_tat = tat + math.max(permits, 1) * interval
    local allow_at = new_tat - tolerance
    if permits > capacity then
      replies[i] = {0, permits_left(tat - now), exact(tat - now), -1, '0'}
    elseif now < allow_at then
      replies[i] = {0, permits_left(tat - now), exact(tat - now), exact(allow_at - now), '0'}
      if stop then
        stopped = i
        break
      end
    elseif permits == 0 then
      replies[i] = {1, permits_left(tat - now), exact(tat - now), '0', '0'}
    else
      written = exact(new_tat)
      replies[i] = {1, permits_left(new_tat - now), exact(new_tat - now), '0', '0'}
      tat = math.max(now, tonumber(written))
    end
  end
  if written then
    redis.call('SET', key, written .. '~' .. argv[3], 'PX', ttl_ms(tonumber(written) - now))
  end
  return replies, stopped
end
