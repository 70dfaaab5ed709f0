-- Reads a key it did not declare (ARGV[1], of the declared key's slot): Dragonfly refuses
-- that; Redis does not.
return redis.call('EXISTS', ARGV[1])
