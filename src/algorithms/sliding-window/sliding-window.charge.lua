-- Sliding-window log charge: logs one member now weighing the permits, whatever the limit
-- (a settled cost above what was reserved, DESIGN §12). A log above the limit is the debt:
-- requests are denied until enough weight has aged out of the window. Reasons:
-- state-ops.model.ts. The body of function(key, now, argv): argv[1] limit,
-- argv[2] windowMicros, argv[3] permits, argv[4] the acquire's id or ''. The member is
-- the acquire's id marked as its charge (its own member stays, for a refund), or, without
-- one, named by the time (a second charge of the same weight at the same µs is one).
local window = tonumber(argv[2])
local id = argv[4] .. '+'
if argv[4] == '' then
  id = 'charge:' .. exact(now)
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now - window))
redis.call('ZADD', key, exact(now), weighted_member(id, tonumber(argv[3])))
redis.call('PEXPIRE', key, ttl_ms(window))
return {1, 0, 0, 0, 0}
