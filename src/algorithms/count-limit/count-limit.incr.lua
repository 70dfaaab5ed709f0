-- The fixed-window counter's usual decision in two commands, INCRBY then PTTL, where
-- count-limit.lua reads first (GET, PTTL) and writes after: the same reply and the same state
-- (its twin is count-limit.memory.ts). For a limit without blocks (argv[1] '0') and a request
-- of 1 to `limit` permits; nil sends the decision the long way (blockable_acquire with
-- count-limit.lua): another request, or a key whose value is no integer (a block kept in it,
-- `<count>!<until>`), which INCRBY refuses without writing. Arguments as blockable_acquire's:
-- argv[1] block, argv[2] limit, argv[3] periodMs, argv[4] permits (absent: 1).
-- TTL      one period from the window's first request: INCRBY made the key, PTTL finds none
-- Denial   takes its permits back (INCRBY -permits): a denial keeps nothing, as count-limit.lua's
local function count_limit_incr(key, argv)
  local n = numeric(argv)
  local limit, permits = n[2], n[4] or 1
  if argv[1] ~= '0' or permits < 1 or permits > limit then
    return nil
  end
  -- The usual request of one permit passes '1': no conversion of a number for the command.
  local count = redis.pcall('INCRBY', key, argv[4] and permits or '1')
  if type(count) ~= 'number' then
    return nil
  end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 or ttl > n[3] then
    -- The window's first request, or a counter without a TTL (a manual SET, a restore):
    -- self-healing, one period; one written under a longer period is cut to this one.
    ttl = n[3]
    redis.call('PEXPIRE', key, ttl)
  end
  if count <= limit then
    return {1, limit - count, ttl * 1000, 0, 0}
  end
  -- A key INCRBY made holds at most `limit`: this one was there before, and keeps its TTL.
  -- INCRBY again, not DECRBY: a user allowed the one command is allowed the give-back.
  redis.call('INCRBY', key, -permits)
  return {0, math.max(0, limit - count + permits), ttl * 1000, ttl * 1000, 0}
end
