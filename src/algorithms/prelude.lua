-- Shared by every limiter script (prepended to each, so each is still one script).
-- ARGV[1]: the time in microseconds as an integer string, or '' to use Redis TIME.
-- Redis >= 5 replicates script effects, so reading TIME before writing is allowed.
local function now_micros()
  if ARGV[1] ~= '' then
    return tonumber(ARGV[1])
  end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

-- tostring keeps 14 significant digits and Redis truncates numbers in replies to
-- integers: '%.17g' round-trips every double exactly.
local function exact(x)
  return string.format('%.17g', x)
end

-- PEXPIRE takes whole milliseconds, at least 1.
local function ttl_ms(micros)
  return math.max(1, math.ceil(micros / 1000))
end
