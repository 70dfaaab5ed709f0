--- @include "../../stores/engine/prelude.lua"
-- The state rolled forward to the window of `now`, for the acquire and the charge (defined
-- once in the engine): the window of `now` (its index), its count and the previous window's
-- count, 0 for a window the key never saw.
local function approximate_roll(key, now, window)
  local index = math.floor(now / window)
  local found = get_state(key)
  if found then
    local i, c, p = string.match(found, '^(%S+) (%S+) (%S+)$')
    i, c, p = tonumber(i), tonumber(c), tonumber(p)
    if i == index then
      return index, c, p
    elseif i == index - 1 then
      return index, 0, c
    end
  end
  return index, 0, 0
end
