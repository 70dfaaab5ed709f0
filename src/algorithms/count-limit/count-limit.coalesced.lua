--- @include "../../stores/redis/engine/prelude.lua"
-- Requests of one fixed-window counter decided in a row, as count-limit.lua decides each,
-- with one read and one write (state-ops/coalesced.lua calls it).
-- argv      the counter's own: limit, periodMs
-- requests  each request's fields: {permits} or {} for 1
-- stop      stop at the first denial that can start a block (not a cost above the limit)
-- Returns   the replies, and the index where it stopped
local function count_limit_coalesced(key, now, argv, requests, stop)
  local limit = tonumber(argv[1])
  local period_ms = tonumber(argv[2])
  local count = tonumber(get_state(key))
  local ttl = 0
  if count then
    ttl = redis.call('PTTL', key)
    -- No TTL, or one of a longer period than this one: one period, as count-limit.lua.
    if ttl < 0 or ttl > period_ms then
      redis.call('PEXPIRE', key, period_ms)
      ttl = period_ms
    end
  else
    count = 0
  end
  -- count-limit.lua sets a counter found at 0 (SET ... PX) and adds to any other (INCRBY).
  local fresh, taken = count == 0, 0
  local replies, stopped = {}, nil
  for i = 1, #requests do
    local permits = tonumber(requests[i][1]) or 1
    local remaining = math.max(0, limit - count)
    if permits > limit then
      replies[i] = {0, remaining, ttl * 1000, -1, 0}
    -- A request of 0 passes only where one of 1 would (it takes nothing).
    elseif count + math.max(permits, 1) > limit then
      replies[i] = {0, remaining, ttl * 1000, ttl * 1000, 0}
      if stop then
        stopped = i
        break
      end
    elseif permits == 0 then
      replies[i] = {1, remaining, ttl * 1000, 0, 0}
    else
      if count == 0 then
        ttl = period_ms
      end
      count = count + permits
      taken = taken + permits
      replies[i] = {1, limit - count, ttl * 1000, 0, 0}
    end
  end
  if taken > 0 then
    if fresh then
      redis.call('SET', key, count, 'PX', period_ms)
    else
      redis.call('INCRBY', key, taken)
    end
  end
  return replies, stopped
end
