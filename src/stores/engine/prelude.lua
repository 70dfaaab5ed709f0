-- Helpers shared by every algorithm's function, written once at the top of the engine script.

-- tostring keeps 14 significant digits and Redis truncates numbers in replies to
-- integers: '%.17g' round-trips every double exactly.
local function exact(x)
  return string.format('%.17g', x)
end

-- PEXPIRE takes whole milliseconds, at least 1.
local function ttl_ms(micros)
  return math.max(1, math.ceil(micros / 1000))
end
