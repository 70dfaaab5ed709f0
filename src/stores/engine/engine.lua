-- The engine: runs a batch of limiter decisions, each with its algorithm, in order, in one
-- script call. Composed at load time (engine-script.ts): the prelude, then
-- `algorithms[i] = function(key, now, argv) <the algorithm's .lua> end` for each algorithm,
-- then this loop.
-- keys[i]   entry i's key (one key per entry): KEYS, or on a Cluster node the keys of several
--           slots, which the call then passes first in ARGV (engine-script.ts)
-- args[1]   deadline: Redis-clock µs after which nobody waits for these answers, or ''
-- then, per entry (args):
--           algorithm  index in `algorithms`
--           time       the entry's time in µs, or '' for Redis TIME
--           count      how many arguments follow
--           arguments  the algorithm's argv: the limit's parameters, then the request's
-- Reply     {redis time in µs, then 5 values per entry}: the algorithm's reply, or
--           {-1, 0, 0, 0, 0} for an entry skipped past its deadline (nothing written), or
--           {-2, message, 0, 0, 0} for an entry whose commands failed (WRONGTYPE, OOM...):
--           the other entries still run.
-- Groups: the first entry of a group (one request's limits, all or nothing, DESIGN §9)
-- names its algorithm `<index>/<size>`, and its members follow it. Their keys are
-- snapshotted first (DUMP and the absolute expiry); after the last member, if any was
-- denied, the allowed members' keys are restored exactly, so a denied request keeps
-- nothing (a denied member keeps what its own denial wrote, such as a block). A member
-- that failed is left to the caller's store-error policy.
local t = redis.call('TIME')
local redis_now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local deadline = tonumber(args[1])
local expired = deadline ~= nil and redis_now > deadline
local out = {redis_now}

local group_first, group_last, group_saved, group_allowed, group_denied = 0, 0, {}, {}, false
-- A group whose keys could not be snapshotted (an ACL without DUMP) runs none of its
-- members: each answers the error, and the caller's store-error policy applies.
local group_failed = nil
local n = 1
local pos = 2
for i = 1, #keys do
  local index, size = string.match(args[pos], '^(%d+)/(%d+)$')
  if index and not expired then
    group_first, group_last = i, i + tonumber(size) - 1
    group_saved, group_allowed, group_denied, group_failed = {}, {}, false, nil
    for j = group_first, group_last do
      local ok, saved = pcall(snapshot, keys[j])
      if not ok then
        group_failed = type(saved) == 'table' and saved.err or tostring(saved)
        break
      end
      group_saved[j] = saved
    end
  end
  local algorithm = algorithms[tonumber(index or args[pos])]
  local time = args[pos + 1]
  local count = tonumber(args[pos + 2])
  local argv = {}
  for j = 1, count do
    argv[j] = args[pos + 2 + j]
  end
  pos = pos + 3 + count
  if expired then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = -1, 0, 0, 0, 0
  elseif group_failed and i <= group_last then
    out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = -2, group_failed, 0, 0, 0
  else
    local now = redis_now
    if time ~= '' then
      now = tonumber(time)
    end
    local ok, reply = pcall(algorithm, keys[i], now, argv)
    if ok then
      out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] =
        reply[1], reply[2], reply[3], reply[4], reply[5]
    else
      -- redis.call raises a table {err = 'WRONGTYPE ...'}; a Lua error is a string.
      local message = type(reply) == 'table' and reply.err or tostring(reply)
      out[n + 1], out[n + 2], out[n + 3], out[n + 4], out[n + 5] = -2, message, 0, 0, 0
    end
    if i <= group_last then
      local allowed = tonumber(out[n + 1])
      if allowed == 1 then
        group_allowed[i] = true
      elseif allowed == 0 then
        group_denied = true
      end
      if i == group_last and group_denied then
        for j = group_first, group_last do
          -- A restore that fails (OOM) leaves what the member took: errs on the strict side.
          if group_allowed[j] then
            pcall(restore, keys[j], group_saved[j])
          end
        end
      end
    end
  end
  n = n + 5
end
return out
