-- Sliding-window log refund: removes the acquire's own member, or, without an id, the
-- newest requests (never a block). Reasons: state-ops.model.ts. The body of
-- function(key, now, argv): argv[1] limit, argv[2] windowMicros, argv[3] permits,
-- argv[4] the acquire's id or ''. Redis deletes a zset left empty.
if argv[4] ~= '' then
  redis.call('ZREM', key, argv[4])
  return {1, 0, 0, 0, 0}
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', exact(now - tonumber(argv[2])))
local newest = redis.call('ZREVRANGEBYSCORE', key, exact(now), '-inf', 'LIMIT', 0, tonumber(argv[3]) + 1)
local left = tonumber(argv[3])
for _, member in ipairs(newest) do
  if left > 0 and member ~= '#block' then
    redis.call('ZREM', key, member)
    left = left - 1
  end
end
return {1, 0, 0, 0, 0}
