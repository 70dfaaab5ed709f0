#!lua flags=allow-cross-slot-keys
-- A script flag, as the Cluster engine carries: Redis 7 takes it; Redis 6 and Dragonfly do not.
return 1
