-- Helpers shared by every algorithm's function, written once at the top of the engine library.

-- tostring keeps 14 significant digits and Redis truncates numbers in replies to
-- integers: '%.17g' round-trips every double exactly. A whole number (a state in whole µs)
-- is written with '%d': the same digits below 1e17, and a cheaper conversion.
local function exact(x)
  return string.format('%.17g', x)
end

-- Whole permits in `span` µs at one per `interval` µs, none below 0.
local function permits_in(span, interval)
  return math.max(0, math.floor(span / interval))
end

-- argv's fields as numbers (nil where one is none), read once for a run of one limit's
-- entries: the engine passes the run one argv table, which nothing writes.
local numbers_of, numbers = nil, nil
local function numeric(argv)
  if argv ~= numbers_of then
    numbers_of, numbers = argv, {}
    for j = 1, #argv do
      numbers[j] = tonumber(argv[j])
    end
  end
  return numbers
end

-- A new argv: argv[from..to], then the fields of `more` (a request's), for a function that is
-- handed an argv of its own (the engine's are shared, and never written).
local function args_of(argv, from, to, more)
  local out = {}
  for j = from, to do
    out[#out + 1] = argv[j]
  end
  for _, field in ipairs(more or {}) do
    out[#out + 1] = field
  end
  return out
end

-- A bucket's moment (µs) as its value holds it, `<moment>~<fingerprint of its options>`,
-- whether that mark is `fp`, and the mark (nil for a moment alone, written before values
-- carried their options): a state written under other options is cut to the current ones.
local function moment_of(found, fp)
  local at = string.find(found, '~', 1, true)
  local mark = at and string.sub(found, at + 1)
  return tonumber(string.sub(found, 1, (at or 0) - 1)), mark == fp, mark
end

-- PEXPIRE takes whole milliseconds, at least 1.
local function ttl_ms(micros)
  return math.max(1, math.ceil(micros / 1000))
end

-- A state as the block's read found it without a block (string_block.read: the value;
-- zset_block.read: every member with its score), so the algorithm's own read of that key in
-- the same entry costs no second command: nothing writes the key between the two. The reads
-- set it themselves, a call less on every entry's path. Taken once; the engine forgets it
-- before each entry, so a value read by an operation that then writes the key (block,
-- adjust) never reaches another entry.
local read_key, read_value = nil, nil

-- Redis's TIME in µs, as the engine read it for this call, whatever time an entry carries:
-- the clock of a state kept in Redis TTLs (the fixed window's end).
local redis_micros

local function forget_state()
  read_key = nil
end

-- A key an entry's algorithm created beside its own (a quota's idempotency key), which a
-- group that gives the entry back deletes with it: a charge undone is not remembered either.
-- The engine clears it before each entry.
local created_key = nil

-- A write-back cell: while the generic coalescer (coalesced.lua) runs one acquire n times on
-- `cell_key`, the acquire's reads and writes of that key through the helpers below go to the
-- cell (its value, its TTL in ms as PTTL reads it, and a TTL a write set), and the cell is
-- written back once after the n decisions: one read and one write, as n entries would leave
-- the key. Outside it, each helper is its command. A log's cell (a zset state: window_of and
-- add_member) holds its members as read, the first in the window, their weight, the members
-- logged, and the scores and members added, for one ZADD.
local cell_key, cell_value, cell_ttl, cell_px, cell_written = nil, nil, nil, nil, false
local cell_first, cell_count, cell_logged, cell_added = nil, nil, nil, nil

-- GET, or the value string_block.read found for this key in this entry, or the cell's.
local function get_state(key)
  if read_key == key then
    read_key = nil
    return read_value
  end
  if cell_key == key then
    return cell_value
  end
  return redis.call('GET', key)
end

-- SET ... PX: the acquires' write of a string state.
local function set_state(key, value, px)
  if cell_key == key then
    cell_value, cell_ttl, cell_px, cell_written = value, tonumber(px), px, true
    return
  end
  redis.call('SET', key, value, 'PX', px)
end

-- `value` written with a TTL of `px` ms, or its TTL kept without one; no value deletes the key
-- (a state back to what no key decides).
local function put_state(key, value, px)
  if not value then
    redis.call('DEL', key)
  elseif px then
    redis.call('SET', key, value, 'PX', px)
  else
    redis.call('SET', key, value, 'KEEPTTL')
  end
end

-- INCRBY, its TTL kept (none for a key it creates).
local function incr_state(key, by)
  if cell_key == key then
    if not cell_value then
      cell_ttl = -1
    end
    local value = (tonumber(cell_value) or 0) + by
    cell_value, cell_written = string.format('%d', value), true
    return value
  end
  return redis.call('INCRBY', key, by)
end

-- PTTL, and PEXPIRE.
local function state_ttl(key)
  if cell_key == key then
    if not cell_ttl then
      cell_ttl = redis.call('PTTL', key)
    end
    return cell_ttl
  end
  return redis.call('PTTL', key)
end

local function expire_state(key, px)
  if cell_key == key then
    if cell_value then
      cell_ttl, cell_px, cell_written = px, px, true
    end
    return
  end
  redis.call('PEXPIRE', key, px)
end

-- Opens the cell on `key` (a string's value read once: get_state; a log's by its first
-- window_of), and closes it: what the acquires wrote, in one SET, with the TTL a write set,
-- else the key's own (KEEPTTL); or a log's members added, in one ZADD, and its TTL.
local function open_cell(key, log)
  cell_value, cell_first, cell_added = nil, nil, log and {}
  if not log then
    cell_value = get_state(key)
  end
  cell_key, cell_ttl, cell_px, cell_written = key, nil, nil, false
end

local function close_cell(write)
  local key = cell_key
  cell_key = nil
  if not (write and cell_written) then
    return
  end
  if cell_added then
    redis.call('ZADD', key, unpack(cell_added))
    redis.call('PEXPIRE', key, cell_px)
  else
    put_state(key, cell_value, cell_px)
  end
end

-- ZRANGE 0 -1 WITHSCORES, or the members zset_block.read found for this key in this entry.
local function get_members(key)
  if read_key == key then
    read_key = nil
    return read_value
  end
  return redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
end

-- The index in `members` (ZRANGE ... WITHSCORES: member, score, ...) of the first member
-- scored above `after`; those before it are removed (ZREMRANGEBYSCORE), with no command when
-- there are none.
local function drop_scored_up_to(key, members, after)
  local first = 1
  while first < #members and tonumber(members[first + 1]) <= after do
    first = first + 2
  end
  if first > 1 then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(after))
  end
  return first
end

-- µs from `now` until the last score of `members` (ZRANGE ... WITHSCORES) from `first`,
-- leaving out the member at `skip`: the end of the last lease or block.
local function until_last_score(members, first, skip, now)
  local i = #members - 1
  if i == skip then
    i = i - 2
  end
  if i < first then
    return 0
  end
  return tonumber(members[i + 1]) - now
end

-- A member of a sliding log or of the in-flight set: the request's id, then NUL and its
-- weight when it takes more than one permit (ids never contain NUL), so one member per
-- request carries its cost and a weight-1 member is the id alone.
local function weighted_member(id, weight)
  if weight == 1 then
    return id
  end
  return id .. '\0' .. weight
end

local function member_weight(member)
  -- Most members are an id alone: a plain find spares them the pattern.
  local weight = string.find(member, '\0', 1, true) and string.match(member, '%z(%d+)$')
  if weight then
    return tonumber(weight)
  end
  return 1
end

-- A member's weight moved by `by` (below 0 takes some), at `score`: the member is removed and
-- written again under its id with the weight it then has, if any. Returns its old weight.
local function reweigh(key, member, score, by)
  local weight = member_weight(member)
  redis.call('ZREM', key, member)
  if weight + by > 0 then
    local id = string.match(member, '^(.-)%z%d+$') or member
    redis.call('ZADD', key, score, weighted_member(id, weight + by))
  end
  return weight
end

-- The index in `members` (ZRANGE ... WITHSCORES: member, score, ...), from `first`, of request
-- `id`'s member (the id, or the id, NUL and its weight), or nil: a log holds one per id.
local function member_index(members, first, id)
  for i = first, #members, 2 do
    local member = members[i]
    if member == id or string.sub(member, 1, #id + 1) == id .. '\0' then
      return i
    end
  end
  return nil
end

-- A log's members (ZRANGE ... WITHSCORES), the index of the first scored above `after` (those
-- before it dropped: drop_scored_up_to), and the weight from there; in a log's cell, the
-- cell's, read on its first call: a cell's acquires share `now` and their limit's window.
local function window_of(key, after)
  if cell_key == key and cell_first then
    return cell_value, cell_first, cell_count
  end
  local log = get_members(key)
  local first = drop_scored_up_to(key, log, after)
  local count = 0
  for i = first, #log, 2 do
    count = count + member_weight(log[i])
  end
  if cell_key == key then
    cell_value, cell_first, cell_count, cell_logged = log, first, count, {}
    for i = first, #log, 2 do
      cell_logged[log[i]] = true
    end
  end
  return log, first, count
end

-- ZADD of a request's member at `score`, then the log's TTL (PEXPIRE `px`); in a log's cell,
-- appended to the cell's log (each score is its `now`, no older than any logged, so the log
-- stays oldest first) and written back once. A member already logged ends the cell with
-- `cell_conflict`: ZADD would move it, not add it (the coalescer then runs the acquires one
-- by one).
local cell_conflict = {}
local function add_member(key, score, member, weight, px)
  if cell_key ~= key then
    redis.call('ZADD', key, score, member)
    redis.call('PEXPIRE', key, px)
    return
  end
  if cell_logged[member] then
    error(cell_conflict)
  end
  local n, m = #cell_value, #cell_added
  cell_value[n + 1], cell_value[n + 2] = member, score
  cell_added[m + 1], cell_added[m + 2] = score, member
  cell_logged[member], cell_count, cell_px, cell_written = true, cell_count + weight, px, true
end

-- A key's value and exact expiry, to put back after running a decision on it: a peek, or
-- the allowed members of a group one of whose members was denied. DUMP, and the absolute
-- expiry where Redis has PEXPIRETIME (7.0), else PTTL.
local function snapshot(key)
  local dump = redis.call('DUMP', key)
  if not dump then
    return {false}
  end
  local ok, at = pcall(redis.call, 'PEXPIRETIME', key)
  if ok then
    return {dump, math.max(0, at), 'ABSTTL'}
  end
  return {dump, math.max(0, redis.call('PTTL', key))}
end

local function restore(key, saved)
  if not saved[1] then
    redis.call('DEL', key)
  else
    redis.call('RESTORE', key, saved[2], saved[1], 'REPLACE', unpack(saved, 3))
  end
end
