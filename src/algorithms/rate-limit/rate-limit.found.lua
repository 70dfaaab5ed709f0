--- @include "../state-ops/prelude.lua"
-- A token bucket's state under older options (the bucket's math: rate-limit.model.ts).
--
-- E beyond now is owed: reservations (each at most its request's timeout ahead) and settled
-- costs (any debt), which look alike. So the value marks what wrote E, `E~<mark>`: the
-- fingerprint of the bucket's options (maxPermits, interval, initialPermits, expire:
-- options-fingerprint.ts), then `:<timeout>` when a decorator wrote it. A timeout is a
-- request's (a factory limiter's calls share the decorator's bucket, each with its own), but
-- a decorator's is its limit's. A request reading E:
--   - under its own mark: E as it is, a settled debt whole;
--   - under another fingerprint (a corrected rate, burst, capacity): E is cut, and written
--       E = ceil(max(now - initialPermits * interval, min(E, now + timeout)))
--     (no min for a request that waits as long as needed): no more owed than this request
--     may wait for, no more saved than a new bucket holds, so never more admitted than from
--     a fresh start; an E before now is then read in the current interval, up to maxPermits;
--   - a decorator's, under its fingerprint and another decorator's timeout (a corrected
--     `timeout: 10000`): the debt is cut, E = ceil(min(E, now + timeout)), and written;
--   - a decorator's, under its fingerprint written by a factory call: E as it is, its own
--     mark written with it next; a factory call's or a charge's: E and the mark as found.
-- The acquire (rate-limit.lua) and its coalesced form call it; the twin is rate-limit.memory.ts.
-- argv    the bucket's own (argv[5] its fingerprint)
-- mark    the request's: the fingerprint, and `:<timeout>` for a decorator's
-- Returns E as the request reads it, the mark to write it with, and whether it was cut (the
--         caller writes it so)
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
