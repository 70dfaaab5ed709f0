--- @include "../state-ops/prelude.lua"
-- The state rolled forward to the window of `now`, for the acquire (and the charge, which is
-- the acquire without its limit): the window of `now` (its index), its count and the previous window's
-- count, 0 for a window the key never saw; then the index's and the previous count's text,
-- for the state's write. A call's entries share `now`: the index, its text and the write's
-- TTL (`roll_ttl`, ms as text: redis.call converts no number) are made once per window.
local roll_now, roll_window, roll_index, roll_text, roll_ttl = nil, nil, nil, nil, nil
local function approximate_roll(key, now, window)
  if now ~= roll_now or window ~= roll_window then
    roll_now, roll_window, roll_index = now, window, math.floor(now / window)
    roll_text = string.format('%d', roll_index)
    roll_ttl = string.format('%d', math.ceil(((roll_index + 2) * window - now) / 1000))
  end
  local found = get_state(key)
  if found then
    -- Whole numbers only (a state is never written otherwise): the index compared as text,
    -- the counts converted by arithmetic, cheaper than calls of tonumber.
    local i, c, p = string.match(found, '^(%d+) (%d+) (%d+)$')
    if i == roll_text then
      return roll_index, c + 0, p + 0, roll_text, p
    elseif i and i + 1 == roll_index then
      return roll_index, 0, c + 0, roll_text, c
    end
  end
  return roll_index, 0, 0, roll_text, '0'
end

-- The model's firstElapsedWithRoom, for the acquire's denial: a closed form, checked once in
-- whole numbers (a function of its own, not a closure made on each denial).
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
