-- The state rolled forward to the window of `now`, included (`--- @include`) by the acquire
-- and the charge: `window` is set before it; it sets `index` (the window of `now`), `curr`
-- (its count) and `prev` (the previous window's count), 0 for a window the key never saw.
local index = math.floor(now / window)
local curr, prev = 0, 0
local found = get_state(key)
if found then
  local i, c, p = string.match(found, '^(%S+) (%S+) (%S+)$')
  i, c, p = tonumber(i), tonumber(c), tonumber(p)
  if i == index then
    curr, prev = c, p
  elseif i == index - 1 then
    prev = c
  end
end
