--- @include "../../../algorithms/state-ops/prelude.lua"
-- The engine: runs a batch of limiter decisions, each with its algorithm, in order, in one
-- call (FCALL of the library's function, or EVALSHA of the same Lua as a script: see
-- docs/engine.md). `algorithms` is the table library.lua builds.
-- engine(keys, args):
-- keys[i]   entry i's key (one key per entry): the call's declared keys; on a Cluster node
--           the keys of several slots, which the call passes first in ARGV instead
--           (engine_across_slots, below)
-- args[1]   deadline: Redis-clock µs after which nobody waits for these answers, or ''
-- args[2]   the entries, packed in one string (packing.ts): per entry these fields,
--           each ended by NUL (no field holds one):
--           algorithm  index in `algorithms`
--           time       the entry's time in µs, or '' for Redis TIME
--           count      how many arguments follow
--           arguments  the algorithm's argv: the limit's parameters, then the request's
--           or one empty field for an entry with the same algorithm, time and arguments as
--           the one before it (a batch's decisions of one limit on other keys): its fields
--           are read once, not once per key
-- Reply     one string (packing.ts): the redis time as TIME gave it (its seconds, then its
--           µs, each ended by NUL: no number formatted), then per entry one field,
--           each ended by NUL: the algorithm's 5 values as integers, joined by ',' (as
--           Redis would reply them: truncated toward zero), or '-1,0,0,0,0' for an entry
--           skipped past its deadline (nothing written), or '-2,<message>' for an entry
--           whose commands failed (WRONGTYPE, OOM...): the other entries still run. A
--           coalesced entry (n decisions of one limit on one key, coalescing.ts)
--           answers n fields, or one `-1`/`-2` field for all of them.
-- Groups: the first entry of a group (one request's limits, all or nothing)
-- names its algorithm `<index>/<size>`, and its members follow it. Their keys are
-- snapshotted first (DUMP and the absolute expiry); after the last member, if any was
-- denied, the allowed members' keys are restored exactly, so a denied request keeps
-- nothing (a denied member keeps what its own denial wrote, such as a block), and the key
-- an allowed member created beside its own (created_key, prelude.lua) is deleted. A member
-- that failed is left to the caller's store-error policy.
local REPLY = '%d,%d,%d,%d,%d'
-- An allowed reply without a retry or a wait (most): two conversions instead of five.
local ALLOWED = '1,%d,%d,0,0'

-- A failed entry's field: its message, without the NUL that ends fields.
local function failed(message)
  return '-2,' .. string.gsub(message, '%z', ' ')
end

-- An algorithm's reply, formatted in the same protected call: a reply that is not 5
-- numbers fails its entry alone.
local function run(algorithm, key, now, argv)
  local reply = algorithm(key, now, argv)
  -- The usual reply first: a string's [1] is nil, without the call of type().
  local allowed = reply[1]
  if allowed == 1 and reply[4] == 0 and reply[5] == 0 then
    return string.format(ALLOWED, reply[2], reply[3]), 1
  end
  -- A coalesced entry (state-ops/coalesced.lua) answers its decisions' fields, formatted.
  if type(reply) == 'string' then
    return reply
  end
  return string.format(REPLY, allowed, reply[2], reply[3], reply[4], reply[5]), allowed
end

-- The entries of the call before, when they were one limit's decisions (one entry in full,
-- the others repeats of it, no group): a call whose packed string is the same (one
-- comparison: Lua interns its strings) reads none of it, and runs the same argv table, so
-- what numeric() and own_args() (prelude.lua, blockable.lua) made of it is made once, not
-- once per call. An app's calls of one limit at one in flight are all such calls.
local known_packed, known_algorithm, known_time, known_fields = nil, nil, nil, nil

-- Standard libraries are read when a call runs: a library's load sees none of them.
local function engine(keys, args)
  local find, sub, byte = string.find, string.sub, string.byte
  local t = redis.call('TIME')
  redis_micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local deadline = tonumber(args[1])
  local expired = deadline ~= nil and redis_micros > deadline
  local out = {t[1], t[2]}
  -- A batch without groups makes no tables for them: they are made when a group starts.
  -- A group whose keys could not be snapshotted (an ACL without DUMP) runs none of its
  -- members (group_failed): each answers the error, and the caller's store-error policy applies.
  local group_first, group_last, group_saved, group_allowed, group_denied = 0, 0, nil, nil, false
  local group_created, group_failed = nil, nil
  local packed = args[2] or ''
  local pos = 1
  -- The last entry written in full: a repeat (an empty first field) runs it again on its key,
  -- with the same argv table (no algorithm writes its argv: numeric() in prelude.lua). A
  -- call's first entry is always in full: these are the known call's only when it is known.
  local algorithm, time, fields = known_algorithm, known_time, known_fields
  -- Whether it is the known call, and the entries read in full.
  local known, read = packed == known_packed, 0
  for i = 1, #keys do
    -- A repeat's one empty field, told by its first byte: nothing to find or cut. Every
    -- entry of the known call is the known one.
    if known or byte(packed, pos) == 0 then
      pos = pos + 1
    else
      read = read + 1
      -- The algorithm, the time and the count of arguments; %Z is any byte but NUL.
      local head, count
      head, time, count, pos = string.match(packed, '^(%Z*)%z(%Z*)%z(%d+)%z()', pos)
      -- A plain index is a number: the pattern runs only for a group's first member.
      local index, size = tonumber(head), nil
      if not index then
        index, size = string.match(head, '^(%d+)/(%d+)$')
      end
      if size and not expired then
        group_first, group_last = i, i + tonumber(size) - 1
        group_saved, group_allowed, group_denied, group_failed, group_created = {}, {}, false, nil, {}
        for j = group_first, group_last do
          local ok, saved = pcall(snapshot, keys[j])
          if not ok then
            group_failed = type(saved) == 'table' and saved.err or tostring(saved)
            break
          end
          group_saved[j] = saved
        end
      end
      algorithm = algorithms[tonumber(index)]
      fields = {}
      for j = 1, tonumber(count) do
        local stop = find(packed, '\0', pos, true)
        fields[j] = sub(packed, pos, stop - 1)
        pos = stop + 1
      end
    end
    if expired then
      out[i + 2] = '-1,0,0,0,0'
    elseif group_failed and i <= group_last then
      out[i + 2] = failed(group_failed)
    else
      local now = time ~= '' and tonumber(time) or redis_micros
      -- forget_state(), a call less on every entry's path.
      read_key = nil
      created_key = nil
      local ok, reply, allowed = pcall(run, algorithm, keys[i], now, fields)
      if ok then
        out[i + 2] = reply
      else
        -- redis.call raises a table {err = 'WRONGTYPE ...'}; a Lua error is a string.
        out[i + 2] = failed(type(reply) == 'table' and reply.err or tostring(reply))
      end
      if i <= group_last then
        allowed = ok and tonumber(allowed)
        if allowed == 1 then
          group_allowed[i] = true
          group_created[i] = created_key
        elseif allowed == 0 then
          group_denied = true
        end
        if i == group_last and group_denied then
          for j = group_first, group_last do
            -- A restore that fails (OOM) leaves what the member took: errs on the strict side.
            if group_allowed[j] then
              pcall(restore, keys[j], group_saved[j])
              if group_created[j] then
                pcall(redis.call, 'DEL', group_created[j])
              end
            end
          end
        end
      end
    end
  end
  -- Known for the next call: a call of one entry in full without a group, in time (a call
  -- past its deadline read its fields but ran none of them: not known).
  known_packed = (known or (read == 1 and group_last == 0 and not expired)) and packed or nil
  known_algorithm, known_time, known_fields = algorithm, time, fields
  out[#out + 1] = ''
  return table.concat(out, '\0')
end

-- Declared keys must share a slot even with `allow-cross-slot-keys`, which only lets a call
-- touch keys of other slots of its node: a Cluster call declares its first key, and passes
-- the count of keys and every key at the head of ARGV.
local function engine_across_slots(_, argv)
  local count = tonumber(argv[1])
  return engine(args_of(argv, 2, count + 1), {argv[count + 2], argv[count + 3]})
end
