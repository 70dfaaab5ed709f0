-- The engine: runs a batch of limiter decisions, each with its algorithm, in order, in one
-- script call. Composed at load time (engine-script.ts): the prelude, then
-- `algorithms[i] = function(key, now, argv) <the algorithm's .lua> end` for each algorithm,
-- then this loop.
-- KEYS[i]   entry i's key (one key per entry; on Cluster every key of a call is in one slot)
-- ARGV[1]   deadline: Redis-clock µs after which nobody waits for these answers, or ''
-- then, per entry:
--           algorithm  index in `algorithms`
--           time       the entry's time in µs, or '' for Redis TIME
--           count      how many arguments follow
--           arguments  the algorithm's argv: the limit's parameters, then the request's
-- Reply     {redis time in µs, then 5 values per entry}: the algorithm's reply, or
--           {-1, 0, 0, 0, 0} for an entry skipped past its deadline (nothing written), or
--           {-2, message, 0, 0, 0} for an entry whose commands failed (WRONGTYPE, OOM...):
--           the other entries still run.
-- Groups (several entries all-or-nothing) can come as an entry of algorithm 0 whose one
-- argument is the size of the group that follows: snapshot its keys (DUMP/PTTL), run them,
-- and RESTORE ... REPLACE if one denies. Index 0 is reserved for that.
local t = redis.call('TIME')
local redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local deadline = tonumber(ARGV[1])
local expired = deadline ~= nil and redis_now > deadline
local out = {redis_now}
local n = 1
local pos = 2
for i = 1, #KEYS do
  local algorithm = algorithms[tonumber(ARGV[pos])]
  local time = ARGV[pos + 1]
  local count = tonumber(ARGV[pos + 2])
  local argv = {}
  for j = 1, count do
    argv[j] = ARGV[pos + 2 + j]
  end
  pos = pos + 3 + count
  if expired then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = -1, 0, 0, 0, 0
  else
    local now = redis_now
    if time ~= '' then
      now = tonumber(time)
    end
    local ok, reply = pcall(algorithm, KEYS[i], now, argv)
    if ok then
      out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] =
        reply[1], reply[2], reply[3], reply[4], reply[5]
    else
      -- redis.call raises a table {err = 'WRONGTYPE ...'}; a Lua error is a string.
      local message = type(reply) == 'table' and reply.err or tostring(reply)
      out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = -2, message, 0, 0, 0
    end
  end
  n = n + 5
end
return out
