--- @include "../../stores/engine/prelude.lua"
-- The state rolled forward to the window of `now`, for the acquire and the charge (defined
-- once in the engine): the window of `now` (its index), its count and the previous window's
-- count, 0 for a window the key never saw.
local function approximate_roll(key, now, window)
  local index = math.floor(now / window)
  local found = get_state(key)
  if found then
    -- Whole numbers only (a state is never written otherwise): arithmetic converts each,
    -- cheaper than three calls of tonumber, and no other text gets that far.
    local i, c, p = string.match(found, '^(%d+) (%d+) (%d+)$')
    if i and i + 0 == index then
      return index, c + 0, p + 0
    elseif i and i + 1 == index then
      return index, 0, c + 0
    end
  end
  return index, 0, 0
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
