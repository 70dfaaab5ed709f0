#!lua name=nestjs_limiter_0d9c6862bd52
local function exact(x)
  return string.format('%.17g', x)
end
local function permits_in(span, interval)
  return math.max(0, math.floor(span / interval))
end
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
local function moment_of(found, fp)
  local at = string.find(found, '~', 1, true)
  local mark = at and string.sub(found, at + 1)
  return tonumber(string.sub(found, 1, (at or 0) - 1)), mark == fp, mark
end
local function ttl_ms(micros)
  return math.max(1, math.ceil(micros / 1000))
end
local read_key, read_value = nil, nil
local redis_micros
local function forget_state()
  read_key = nil
end
local created_key = nil
local cell_key, cell_value, cell_ttl, cell_px, cell_written = nil, nil, nil, nil, false
local cell_first, cell_count, cell_logged, cell_added = nil, nil, nil, nil
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
local function set_state(key, value, px)
  if cell_key == key then
    cell_value, cell_ttl, cell_px, cell_written = value, tonumber(px), px, true
    return
  end
  redis.call('SET', key, value, 'PX', px)
end
local function put_state(key, value, px)
  if not value then
    redis.call('DEL', key)
  elseif px then
    redis.call('SET', key, value, 'PX', px)
  else
    redis.call('SET', key, value, 'KEEPTTL')
  end
end
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
local function get_members(key)
  if read_key == key then
    read_key = nil
    return read_value
  end
  return redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
end
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
local function weighted_member(id, weight)
  if weight == 1 then
    return id
  end
  return id .. '\0' .. weight
end
local function member_weight(member)
  local weight = string.find(member, '\0', 1, true) and string.match(member, '%z(%d+)$')
  if weight then
    return tonumber(weight)
  end
  return 1
end
local function reweigh(key, member, score, by)
  local weight = member_weight(member)
  redis.call('ZREM', key, member)
  if weight + by > 0 then
    local id = string.match(member, '^(.-)%z%d+$') or member
    redis.call('ZADD', key, score, weighted_member(id, weight + by))
  end
  return weight
end
local function member_index(members, first, id)
  for i = first, #members, 2 do
    local member = members[i]
    if member == id or string.sub(member, 1, #id + 1) == id .. '\0' then
      return i
    end
  end
  return nil
end
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
local string_block = {}
local function split_block(value)
  if not string.find(value, '!', 1, true) then
    return value, nil
  end
  local inner, until_, level, expires = string.match(value, '^(.-)!(%d+)!(%d+)!(%d*)$')
  if until_ then
    return inner, tonumber(until_), tonumber(level), tonumber(expires)
  end
  inner, until_ = string.match(value, '^(.-)!(%d+)$')
  if until_ then
    return inner, tonumber(until_)
  end
  return value, nil
end
function string_block.read(key)
  forget_state()
  local found = redis.call('GET', key)
  local _, until_, level, expires = split_block(found or '')
  if not until_ then
    read_key, read_value = key, found
  end
  return until_, level, expires
end
function string_block.unblocked(key)
  local found = redis.call('GET', key)
  read_key, read_value = key, found
  return not (found and string.find(found, '!', 1, true))
end
function string_block.hide(key, now)
  local inner, _, level, expires = split_block(redis.call('GET', key))
  local timed = level and expires
  put_state(key, inner ~= '' and not (timed and now >= expires) and inner or nil, timed and ttl_ms(expires - now))
end
function string_block.write(key, now, until_, level, keep_until)
  local pttl = redis.call('PTTL', key)
  local inner = redis.call('GET', key) or ''
  local value = inner .. '!' .. exact(until_)
  if level then
    local expires = (inner ~= '' and pttl >= 0) and exact(now + pttl * 1000) or ''
    value = value .. '!' .. level .. '!' .. expires
  end
  redis.call('SET', key, value, 'PX', math.max(pttl, ttl_ms((keep_until or until_) - now)))
end
local zset_block = {zset = true}
function zset_block.read(key)
  forget_state()
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local until_, level = nil, nil
  for i = 1, #members, 2 do
    local member = members[i]
    if member == '#block' then
      until_ = tonumber(members[i + 1])
    elseif member == '#level' then
      level = tonumber(members[i + 1])
    end
  end
  if not until_ then
    read_key, read_value = key, members
    return nil
  end
  return until_, level
end
function zset_block.unblocked(key)
  return not zset_block.read(key)
end
function zset_block.hide(key)
  redis.call('ZREM', key, '#block', '#level')
end
function zset_block.write(key, now, until_, level, keep_until)
  local pttl = redis.call('PTTL', key)
  redis.call('ZADD', key, exact(until_), '#block')
  if level then
    redis.call('ZADD', key, level, '#level')
  end
  redis.call('PEXPIRE', key, math.max(pttl, ttl_ms((keep_until or until_) - now)))
end
local own_of, own = nil, nil
local function own_args(argv)
  if argv ~= own_of then
    own_of, own = argv, args_of(argv, 2, #argv)
  end
  return own
end
local function current_block(blocks, key, now, block, steps)
  local until_, level = blocks.read(key, now)
  block = steps and steps[math.min(level or 1, #steps)] or block
  if until_ and level ~= 0 and until_ > now + block then
    blocks.hide(key, now)
    if block == 0 then
      return nil
    end
    until_ = now + block
    blocks.write(key, now, until_, steps and level, steps and until_ + steps[#steps])
  end
  return until_, level
end
local function blockable_acquire(decide, blocks, fast)
  local function acquire(key, now, argv)
    if argv[1] == '0' and blocks.unblocked(key) then
      if argv ~= own_of then
        own_args(argv)
      end
      return decide(key, now, own)
    end
    local block, steps = tonumber(argv[1]), nil
    if not block then
      steps = {}
      for step in string.gmatch(argv[1], '[^,]+') do
        steps[#steps + 1] = tonumber(step)
      end
      block = steps[1]
    end
    local until_, level = current_block(blocks, key, now, block, steps)
    if until_ then
      if now < until_ then
        return {0, 0, until_ - now, until_ - now, 0}
      end
      blocks.hide(key, now)
      if not steps or level == 0 or (level and now >= until_ + steps[#steps]) then
        level = nil
      end
    end
    local reply = decide(key, now, own_args(argv))
    if tonumber(reply[1]) == 0 and block > 0 and tonumber(reply[4]) >= 0 then
      local keep_until = nil
      if steps then
        level = math.min((level or 0) + 1, #steps)
        block = steps[level]
        keep_until = now + block + steps[#steps]
      end
      blocks.write(key, now, now + block, level, keep_until)
      return {0, reply[2], math.max(tonumber(reply[3]), block), math.max(tonumber(reply[4]), block), 0}
    end
    if level then
      blocks.write(key, now, until_, level, until_ + steps[#steps])
    end
    return reply
  end
  if not fast then
    return acquire
  end
  return function(key, now, argv)
    return fast(key, argv) or acquire(key, now, argv)
  end
end
local function peek_of(decide, blocks)
  return function(key, now, argv)
    local until_ = blocks.read(key, now)
    local left = math.max(0, (until_ or now) - now)
    local saved = snapshot(key)
    if until_ then
      blocks.hide(key, now)
    end
    local reply = decide(key, now, argv)
    restore(key, saved)
    if left > 0 then
      return {0, 0, math.max(tonumber(reply[3]), left), math.max(tonumber(reply[4]), left), left}
    end
    return {reply[1], reply[2], reply[3], reply[4], 0}
  end
end
local function reset_state(key)
  redis.call('DEL', key)
  return {1, 0, 0, 0, 0}
end
local function block_of(blocks, over)
  return function(key, now, argv)
    if not over and blocks.read(key, now) then
      blocks.hide(key, now)
    end
    blocks.write(key, now, now + tonumber(argv[1]), (not over) and 0 or nil)
    return {1, 0, 0, 0, 0}
  end
end
local function adjust_of(adjust, blocks)
  return function(key, now, argv)
    local until_, level = blocks.read(key, now)
    local keep_until = nil
    if until_ then
      if level then
        keep_until = now + math.max(0, redis.call('PTTL', key)) * 1000
      end
      blocks.hide(key, now)
    end
    adjust(key, now, argv)
    if until_ and (until_ > now or level) then
      blocks.write(key, now, until_, level, keep_until)
    end
    return {1, 0, 0, 0, 0}
  end
end
local function without_limit(decide)
  return function(key, now, argv)
    local lifted = args_of(argv, 1, #argv)
    lifted[1] = math.huge
    return decide(key, now, lifted)
  end
end
local function decide_in_cell(decide, blocks, key, now, own, requests, stop)
  local replies, stopped = {}, nil
  open_cell(key, blocks.zset)
  local ok, err = pcall(function()
    for i = 1, #requests do
      local reply = decide(key, now, args_of(own, 1, #own, requests[i]))
      replies[i] = reply
      if stop and tonumber(reply[1]) == 0 and tonumber(reply[4]) >= 0 then
        stopped = i
        break
      end
    end
  end)
  close_cell(ok)
  if err == cell_conflict then
    return nil
  elseif not ok then
    error(err, 0)
  end
  return replies, stopped
end
local function coalesced_of(decide, blocks)
  local one = blockable_acquire(decide, blocks)
  return function(key, now, argv)
    local params = tonumber(argv[#argv]) - 1
    local n = tonumber(argv[#argv - 1])
    local requests, pos = {}, params + 2
    for i = 1, n do
      local count = tonumber(argv[pos])
      requests[i] = args_of(argv, pos + 1, pos + count)
      pos = pos + count + 1
    end
    local function one_by_one()
      local replies = {}
      for i = 1, n do
        forget_state()
        replies[i] = one(key, now, args_of(argv, 1, params + 1, requests[i]))
      end
      return replies
    end
    local replies, stopped = {}, nil
    local block = tonumber(argv[1])
    local until_ = nil
    if block then
      until_ = current_block(blocks, key, now, block)
    end
    if until_ and now < until_ then
      for i = 1, n do
        replies[i] = {0, 0, until_ - now, until_ - now, 0}
      end
    elseif not block or until_ then
      replies = one_by_one()
    else
      local own = args_of(argv, 2, params + 1)
      replies, stopped = decide_in_cell(decide, blocks, key, now, own, requests, block > 0)
      if not replies then
        replies = one_by_one()
      end
    end
    if stopped then
      blocks.write(key, now, now + block)
      local reply = replies[stopped]
      replies[stopped] = {0, reply[2], math.max(tonumber(reply[3]), block), math.max(tonumber(reply[4]), block), 0}
      for i = stopped + 1, n do
        replies[i] = {0, 0, block, block, 0}
      end
    end
    local out = {}
    for i = 1, n do
      local reply = replies[i]
      out[i] = string.format('%d,%d,%d,%d,%d', reply[1], reply[2], reply[3], reply[4], reply[5])
    end
    return table.concat(out, '\0')
  end
end
local algorithms = {}
local function add_entries(blocks, spec)
  local function add(entry)
    algorithms[#algorithms + 1] = entry
  end
  local decide = spec.acquire
  local acquire = spec.keeps_block and decide or blockable_acquire(decide, blocks)
  add(spec.fast and blockable_acquire(decide, blocks, spec.fast) or acquire)
  add(peek_of(acquire, blocks))
  add(reset_state)
  add(block_of(blocks, spec.keeps_block))
  if spec.refund then
    add(adjust_of(spec.refund, blocks))
  end
  if spec.charge then
    add(adjust_of(spec.charge, blocks))
  end
  if spec.coalesced then
    add(coalesced_of(decide, blocks))
  end
end
local function rate_limit_found(found, now, argv, mark, timeout)
  local stored, same, was = moment_of(found, mark)
  if same then
    return stored, mark, false
  end
  local shape, by = string.match(was or '', '^([^:]*):?(.*)$')
  local decorator = #mark > #argv[5]
  if shape == argv[5] and (by == '' or not decorator) then
    return stored, decorator and mark or was, false
  end
  local upper = timeout < 0 and stored or math.min(stored, now + timeout)
  if shape == argv[5] then
    return math.ceil(upper), mark, true
  end
  return math.ceil(math.max(now - tonumber(argv[3]) * tonumber(argv[2]), upper)), mark, true
end
local function rate_limit(key, now, argv)
  local n = numeric(argv)
  local max_permits, interval, expire, permits, timeout = n[1], n[2], n[4], n[6], n[7]
  local full_span = max_permits * interval
  local mark = argv[8] and argv[5] .. ':' .. argv[8] or argv[5]
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
local function rate_limit_refund(key, now, argv)
  local max_permits, interval, expire = tonumber(argv[1]), tonumber(argv[2]), tonumber(argv[4])
  local full_span = max_permits * interval
  local found = get_state(key)
  if found then
    local empty_at = math.max(math.floor(moment_of(found, '') - tonumber(argv[6]) * interval), math.ceil(now - full_span))
    local full = empty_at <= now - full_span and tonumber(argv[3]) >= max_permits
    put_state(key, not full and exact(empty_at) .. (string.match(found, '~.*') or '') or nil, ttl_ms(math.max(expire, empty_at + full_span - now)))
  end
end
add_entries(string_block, {
  acquire = rate_limit, refund = rate_limit_refund, charge = rate_limit, coalesced = true,
})
local function count_limit(key, now, argv)
  local n = numeric(argv)
  local limit, period_ms, permits = n[1], n[2], n[3] or 1
  local found = tonumber(get_state(key))
  local count, ttl = found or 0, found and state_ttl(key) or 0
  if found and (ttl < 0 or ttl > period_ms) then
    expire_state(key, period_ms)
    ttl = period_ms
  end
  local remaining = math.max(0, limit - count)
  if permits > limit then
    return {0, remaining, ttl * 1000, -1, 0}
  end
  if count + math.max(permits, 1) > limit then
    return {0, remaining, ttl * 1000, ttl * 1000, 0}
  end
  if permits == 0 then
    return {1, remaining, ttl * 1000, 0, 0}
  end
  if count == 0 then
    set_state(key, permits, period_ms)
    ttl = period_ms
  else
    incr_state(key, permits)
  end
  return {1, limit - count - permits, ttl * 1000, 0, 0}
end
local function count_limit_incr(key, argv)
  local n = numeric(argv)
  local limit, permits = n[2], n[4] or 1
  if argv[1] ~= '0' or permits < 1 or permits > limit then
    return nil
  end
  local count = redis.pcall('INCRBY', key, argv[4] and permits or '1')
  if type(count) ~= 'number' then
    return nil
  end
  local ttl = redis.call('PTTL', key)
  if ttl < 0 or ttl > n[3] then
    ttl = n[3]
    redis.call('PEXPIRE', key, ttl)
  end
  if count <= limit then
    return {1, limit - count, ttl * 1000, 0, 0}
  end
  redis.call('INCRBY', key, -permits)
  return {0, math.max(0, limit - count + permits), ttl * 1000, ttl * 1000, 0}
end
local function count_limit_refund(key, now, argv)
  local period_ms = tonumber(argv[2])
  local count = tonumber(get_state(key))
  local left = argv[5] ~= '' and (tonumber(argv[5]) or tonumber(string.sub(argv[5], 2)) - redis_micros)
  if count and not (left and math.abs(redis.call('PTTL', key) - left / 1000) * 2 >= period_ms) then
    local rest = count - tonumber(argv[3])
    put_state(key, rest > 0 and rest or nil)
  end
end
add_entries(string_block, {
  acquire = count_limit, fast = count_limit_incr, refund = count_limit_refund,
  charge = without_limit(count_limit), coalesced = true,
})
local function sliding_window_limit(key, now, argv)
  local limit, window, permits = tonumber(argv[1]), tonumber(argv[2]), tonumber(argv[4]) or 1
  local log, first, count = window_of(key, now - window)
  if permits > 0 and count + permits <= limit then
    add_member(key, string.format('%d', now), weighted_member(argv[3], permits), permits, math.ceil(window / 1000))
    return {1, limit - count - permits, window, 0, 0}
  end
  local remaining = math.max(0, limit - count)
  local reset = 0
  if #log > first then
    reset = tonumber(log[#log]) + window - now
  end
  if permits > limit then
    return {0, remaining, reset, -1, 0}
  end
  local need = math.max(permits, 1)
  if permits == 0 and count + need <= limit then
    return {1, remaining, reset, 0, 0}
  end
  local freed = 0
  for i = first, #log, 2 do
    freed = freed + member_weight(log[i])
    if count - freed + need <= limit then
      return {0, remaining, reset, tonumber(log[i + 1]) + window - now, 0}
    end
  end
end
local function sliding_window_limit_refund(key, now, argv)
  local permits = tonumber(argv[3])
  if argv[4] ~= '' then
    if redis.call('ZREM', key, weighted_member(argv[4], permits)) == 0 then
      local log = get_members(key)
      local at = member_index(log, 1, argv[4])
      if at then
        reweigh(key, log[at], log[at + 1], -permits)
      end
    end
    return
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now - tonumber(argv[2])))
  local newest = redis.call('ZREVRANGEBYSCORE', key, exact(now), '-inf', 'WITHSCORES', 'LIMIT', 0, permits + 1)
  local left = permits
  for i = 1, #newest, 2 do
    local member = newest[i]
    if left > 0 and member ~= '#block' then
      left = left - reweigh(key, member, newest[i + 1], -left)
    end
  end
end
local function sliding_window_limit_charge(key, now, argv)
  local window = tonumber(argv[2])
  local id = argv[4] == '' and 'charge:' .. exact(now) or argv[4] .. '+'
  local log = get_members(key)
  local at = member_index(log, drop_scored_up_to(key, log, now - window), id)
  if at then
    reweigh(key, log[at], exact(now), tonumber(argv[3]))
  else
    redis.call('ZADD', key, exact(now), weighted_member(id, tonumber(argv[3])))
  end
  redis.call('PEXPIRE', key, ttl_ms(window))
end
add_entries(zset_block, {
  acquire = sliding_window_limit, refund = sliding_window_limit_refund,
  charge = sliding_window_limit_charge, coalesced = true,
})
local function concurrency_limit(key, now, argv)
  local max, lease, permits = tonumber(argv[1]), tonumber(argv[2]), tonumber(argv[5]) or 1
  local member = weighted_member(argv[4], permits)
  local leases = get_members(key)
  local first = drop_scored_up_to(key, leases, now)
  if #leases > first and leases[#leases - 1] ~= '#block' and tonumber(leases[#leases]) > now + lease then
    for i = first, #leases, 2 do
      if leases[i] ~= '#block' and tonumber(leases[i + 1]) > now + lease then
        redis.call('ZADD', key, 'XX', exact(now + lease), leases[i])
      end
    end
    leases, first = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES'), 1
    redis.call('PEXPIRE', key, ttl_ms(tonumber(leases[#leases]) - now))
  end
  local blocked_until, held_at, count = nil, nil, 0
  for i = first, #leases, 2 do
    local name = leases[i]
    if name == '#block' then
      blocked_until = tonumber(leases[i + 1])
    else
      count = count + member_weight(name)
      if name == member then
        held_at = i
      end
    end
  end
  if argv[3] == 'release' then
    if held_at then
      redis.call('ZREM', key, member)
      count = count - permits
    end
    return {1, max - count, until_last_score(leases, first, held_at, now), 0, 0}
  end
  if blocked_until then
    return {0, 0, until_last_score(leases, first, nil, now), blocked_until - now, 0}
  end
  if permits > max then
    return {0, math.max(0, max - count), until_last_score(leases, first, nil, now), -1, 0}
  end
  local need = math.max(permits, 1)
  if held_at or count + need <= max then
    if permits == 0 then
      return {1, max - count, until_last_score(leases, first, nil, now), 0, 0}
    end
    redis.call('ZADD', key, string.format('%d', now + lease), member)
    local last = math.max(lease, until_last_score(leases, first, held_at, now))
    redis.call('PEXPIRE', key, ttl_ms(last))
    if not held_at then
      count = count + permits
    end
    return {1, max - count, last, 0, 0}
  end
  local freed = 0
  for i = first, #leases, 2 do
    freed = freed + member_weight(leases[i])
    if count - freed + need <= max then
      return {0, math.max(0, max - count), until_last_score(leases, first, nil, now), tonumber(leases[i + 1]) - now, 0}
    end
  end
end
add_entries(zset_block, { acquire = concurrency_limit, keeps_block = true })
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
local function leaky_bucket_limit_refund(key, now, argv)
  local found = get_state(key)
  if found then
    local tat = moment_of(found, '') - tonumber(argv[4]) * tonumber(argv[2])
    put_state(key, tat > now and exact(tat) .. (string.match(found, '~.*') or '') or nil, ttl_ms(tat - now))
  end
end
local function leaky_bucket_limit_charge(key, now, argv)
  local interval = tonumber(argv[2])
  local tat = now
  local found = get_state(key)
  if found then
    local moment, same = moment_of(found, argv[3])
    tat = math.max(now, same and moment or math.min(moment, now + interval * tonumber(argv[1])))
  end
  tat = tat + tonumber(argv[4]) * interval
  redis.call('SET', key, exact(tat) .. '~' .. argv[3], 'PX', ttl_ms(tat - now))
end
add_entries(string_block, {
  acquire = leaky_bucket_limit, refund = leaky_bucket_limit_refund,
  charge = leaky_bucket_limit_charge, coalesced = true,
})
local roll_now, roll_window, roll_index, roll_text, roll_ttl = nil, nil, nil, nil, nil
local function approximate_roll(key, now, window)
  if now ~= roll_now or window ~= roll_window then
    roll_now, roll_window, roll_index = now, window, math.floor(now / window)
    roll_text = string.format('%d', roll_index)
    roll_ttl = string.format('%d', math.ceil(((roll_index + 2) * window - now) / 1000))
  end
  local found = get_state(key)
  if found then
    local i, c, p = string.match(found, '^(%d+) (%d+) (%d+)$')
    if i == roll_text then
      return roll_index, c + 0, p + 0, roll_text, p
    elseif i and i + 1 == roll_index then
      return roll_index, 0, c + 0, roll_text, c
    end
  end
  return roll_index, 0, 0, roll_text, '0'
end
local function first_elapsed_with_room(weight, room, window)
  if weight <= 0 then
    return 0
  end
  local fits = room * window
  local span = math.floor(fits / weight)
  if span * weight > fits then
    span = span - 1
  end
  return math.max(0, window - span)
end
local function approximate_sliding_window_limit(key, now, argv)
  local n = numeric(argv)
  local limit, window, permits = n[1], n[2], n[3]
  local index, curr, prev, index_text, prev_text = approximate_roll(key, now, window)
  local elapsed = now - index * window
  local used = prev * (window - elapsed) + curr * window
  if permits > 0 and used + permits * window <= limit * window then
    local reset = (index + 2) * window - now
    set_state(key, string.format('%s %d %s', index_text, curr + permits, prev_text), roll_ttl)
    return {1, math.floor((limit * window - used - permits * window) / window), reset, 0, 0}
  end
  local reset_as_is = 0
  if curr > 0 then
    reset_as_is = (index + 2) * window - now
  elseif prev > 0 then
    reset_as_is = (index + 1) * window - now
  end
  local remaining_as_is = math.max(0, math.floor((limit * window - used) / window))
  if permits > limit then
    return {0, remaining_as_is, reset_as_is, -1, 0}
  end
  if permits == 0 and used + window <= limit * window then
    return {1, remaining_as_is, reset_as_is, 0, 0}
  end
  permits = math.max(permits, 1)
  if curr + permits <= limit then
    return {0, remaining_as_is, reset_as_is, first_elapsed_with_room(prev, limit - curr - permits, window) - elapsed, 0}
  end
  return {0, remaining_as_is, reset_as_is, window - elapsed + first_elapsed_with_room(curr, limit - permits, window), 0}
end
local function approximate_sliding_window_limit_refund(key, now, argv)
  local window, permits = tonumber(argv[2]), tonumber(argv[3])
  local found = get_state(key)
  if not found then
    return
  end
  local i, c, p = string.match(found, '^(%S+) (%S+) (%S+)$')
  i, c, p = tonumber(i), tonumber(c), tonumber(p)
  local index = argv[5] == '' and math.floor(now / window) or math.floor((now + tonumber(argv[5])) / window + 0.5) - 2
  if index == i then
    c = math.max(0, c - permits)
  elseif index == i - 1 then
    p = math.max(0, p - permits)
  else
    return
  end
  put_state(key, (c > 0 or p > 0) and exact(i) .. ' ' .. exact(c) .. ' ' .. exact(p) or nil)
end
add_entries(string_block, {
  acquire = approximate_sliding_window_limit, refund = approximate_sliding_window_limit_refund,
  charge = without_limit(approximate_sliding_window_limit), coalesced = true,
})
local function quota_limit(key, now, argv)
  local n = numeric(argv)
  local limit, soft, window, permits = n[1], n[2], n[3], n[4]
  local start, finish
  if now >= n[7] * 1000 then
    start, finish = n[7], n[8]
  elseif now >= n[6] * 1000 then
    start, finish = n[6], n[7]
  elseif now >= n[5] * 1000 then
    start, finish = n[5], n[6]
  end
  if not start or now >= finish * 1000 then
    error('quota: the cycles sent do not hold Redis time ' .. now)
  end
  local reset = finish * 1000 - now
  local used, credit, reached = 0, 0, 0
  local value = get_state(key)
  if value then
    local s, u, c, r = string.match(value, '^(%w+):(%d+):?(%d*)(s?)$')
    if s and tonumber(s, 36) == start then
      used, credit, reached = tonumber(u), tonumber(c) or 0, r == 's' and 1 or 0
    end
  end
  local remembered = nil
  if argv[10] ~= '' then
    local open = string.find(key, '{', 1, true)
    local close = open and string.find(key, '}', open + 1, true)
    local tag = (close and close > open + 1) and key or '{' .. key .. '}'
    remembered = tag .. ':' .. start .. ':' .. argv[10]
    local first = redis.call('GET', remembered)
    if first then
      local r, u = string.match(first, '^(%d+):(%d+)$')
      return {1, tonumber(r), reset, 0, tonumber(u) * 4 + 2}
    end
  end
  local allowance = limit + credit
  local function save()
    local digits, rest, stamp = '0123456789abcdefghijklmnopqrstuvwxyz', start, ''
    repeat
      local digit = rest % 36
      stamp = string.sub(digits, digit + 1, digit + 1) .. stamp
      rest = (rest - digit) / 36
    until rest == 0
    local state = stamp .. ':' .. string.format('%d', used)
    if credit > 0 then
      state = state .. ':' .. string.format('%d', credit)
    end
    if reached == 1 then
      state = state .. 's'
    end
    redis.call('SET', key, state, 'PX', ttl_ms(reset))
  end
  if n[9] > 0 then
    credit = credit + n[9]
    save()
    return {1, allowance + n[9] - used, reset, 0, used * 4}
  end
  if used + math.max(permits, 1) > allowance then
    return {0, math.max(0, allowance - used), reset, permits > limit and -1 or reset, used * 4}
  end
  if permits == 0 then
    return {1, allowance - used, reset, 0, used * 4}
  end
  local flags = 0
  used = used + permits
  if soft > 0 and reached == 0 and used >= soft then
    reached, flags = 1, 1
  end
  save()
  if remembered then
    redis.call('SET', remembered, (allowance - used) .. ':' .. used, 'PX', math.max(1, math.min(ttl_ms(reset), window)))
    created_key = remembered
  end
  return {1, allowance - used, reset, 0, used * 4 + flags}
end
add_entries(string_block, { acquire = quota_limit })
local REPLY = '%d,%d,%d,%d,%d'
local ALLOWED = '1,%d,%d,0,0'
local function failed(message)
  return '-2,' .. string.gsub(message, '%z', ' ')
end
local function run(algorithm, key, now, argv)
  local reply = algorithm(key, now, argv)
  local allowed = reply[1]
  if allowed == 1 and reply[4] == 0 and reply[5] == 0 then
    return string.format(ALLOWED, reply[2], reply[3]), 1
  end
  if type(reply) == 'string' then
    return reply
  end
  return string.format(REPLY, allowed, reply[2], reply[3], reply[4], reply[5]), allowed
end
local known_packed, known_algorithm, known_time, known_fields = nil, nil, nil, nil
local function engine(keys, args)
  local find, sub, byte = string.find, string.sub, string.byte
  local t = redis.call('TIME')
  redis_micros = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local deadline = tonumber(args[1])
  local expired = deadline ~= nil and redis_micros > deadline
  local out = {t[1], t[2]}
  local group_first, group_last, group_saved, group_allowed, group_denied = 0, 0, nil, nil, false
  local group_created, group_failed = nil, nil
  local packed = args[2] or ''
  local pos = 1
  local algorithm, time, fields = known_algorithm, known_time, known_fields
  local known, read = packed == known_packed, 0
  for i = 1, #keys do
    if known or byte(packed, pos) == 0 then
      pos = pos + 1
    else
      read = read + 1
      local head, count
      head, time, count, pos = string.match(packed, '^(%Z*)%z(%Z*)%z(%d+)%z()', pos)
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
      read_key = nil
      created_key = nil
      local ok, reply, allowed = pcall(run, algorithm, keys[i], now, fields)
      if ok then
        out[i + 2] = reply
      else
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
  known_packed = (known or (read == 1 and group_last == 0 and not expired)) and packed or nil
  known_algorithm, known_time, known_fields = algorithm, time, fields
  out[#out + 1] = ''
  return table.concat(out, '\0')
end
local function engine_across_slots(_, argv)
  local count = tonumber(argv[1])
  return engine(args_of(argv, 2, count + 1), {argv[count + 2], argv[count + 3]})
end
redis.register_function('nestjs_limiter_0d9c6862bd52', engine)
redis.register_function{
  function_name = 'nestjs_limiter_0d9c6862bd52_across_slots',
  callback = engine_across_slots,
  flags = {'allow-cross-slot-keys'},
}
