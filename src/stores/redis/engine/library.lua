-- The engine as a Redis Functions library: the source of engine.library.lua, which
-- `npm run engine:library` composes from this file (scripts/engine-library.js): each
-- `--- @include` is replaced by its file, once (a file included again is left out), comment
-- lines and blank lines are dropped, and __LIBRARY__ becomes the library's versioned name.
-- Where Redis has no Functions the store runs the same text as a script (eval.lua).
--- @include "prelude.lua"
--- @include "../../../algorithms/state-ops/string-block.lua"
--- @include "../../../algorithms/state-ops/zset-block.lua"
--- @include "../../../algorithms/state-ops/blockable.lua"
--- @include "../../../algorithms/state-ops/state-ops.lua"

-- Operations every algorithm shares.
local reset_key = reset_state

local function block_string_block_key(key, now, argv)
  return block_state(string_block, key, now, argv)
end

local function block_zset_block_key(key, now, argv)
  return block_state(zset_block, key, now, argv)
end

-- Token bucket (@RateLimit). Its charge is its acquire without a timeout.
--- @include "../../../algorithms/rate-limit/rate-limit.found.lua"
local function limiterRateLimit(key, now, argv)
--- @include "../../../algorithms/rate-limit/rate-limit.lua"
end

local limiterRateLimitWithBlock = blockable_acquire(limiterRateLimit, string_block)

local function limiterRateLimitPeek(key, now, argv)
  return peek_state(limiterRateLimitWithBlock, string_block, key, now, argv)
end

local function limiterRateLimitRefund(key, now, argv)
--- @include "../../../algorithms/rate-limit/rate-limit.refund.lua"
end

local function limiterRateLimitRefundWithBlock(key, now, argv)
  return adjust_state(limiterRateLimitRefund, string_block, key, now, argv)
end

local function limiterRateLimitChargeWithBlock(key, now, argv)
  return adjust_state(limiterRateLimit, string_block, key, now, argv)
end

-- Fixed-window counter (@CountLimit).
local function limiterCountLimit(key, now, argv)
--- @include "../../../algorithms/count-limit/count-limit.lua"
end

--- @include "../../../algorithms/count-limit/count-limit.incr.lua"

local count_limit_long_way = blockable_acquire(limiterCountLimit, string_block)

local function limiterCountLimitWithBlock(key, now, argv)
  return count_limit_incr(key, argv) or count_limit_long_way(key, now, argv)
end

local function limiterCountLimitPeek(key, now, argv)
  return peek_state(limiterCountLimitWithBlock, string_block, key, now, argv)
end

local function limiterCountLimitRefund(key, now, argv)
--- @include "../../../algorithms/count-limit/count-limit.refund.lua"
end

local function limiterCountLimitRefundWithBlock(key, now, argv)
  return adjust_state(limiterCountLimitRefund, string_block, key, now, argv)
end

local function limiterCountLimitCharge(key, now, argv)
--- @include "../../../algorithms/count-limit/count-limit.charge.lua"
end

local function limiterCountLimitChargeWithBlock(key, now, argv)
  return adjust_state(limiterCountLimitCharge, string_block, key, now, argv)
end

-- Sliding-window log (@SlidingWindowLimit).
local function limiterSlidingWindowLimit(key, now, argv)
--- @include "../../../algorithms/sliding-window-limit/sliding-window-limit.lua"
end

local limiterSlidingWindowLimitWithBlock = blockable_acquire(limiterSlidingWindowLimit, zset_block)

local function limiterSlidingWindowLimitPeek(key, now, argv)
  return peek_state(limiterSlidingWindowLimitWithBlock, zset_block, key, now, argv)
end

local function limiterSlidingWindowLimitRefund(key, now, argv)
--- @include "../../../algorithms/sliding-window-limit/sliding-window-limit.refund.lua"
end

local function limiterSlidingWindowLimitRefundWithBlock(key, now, argv)
  return adjust_state(limiterSlidingWindowLimitRefund, zset_block, key, now, argv)
end

local function limiterSlidingWindowLimitCharge(key, now, argv)
--- @include "../../../algorithms/sliding-window-limit/sliding-window-limit.charge.lua"
end

local function limiterSlidingWindowLimitChargeWithBlock(key, now, argv)
  return adjust_state(limiterSlidingWindowLimitCharge, zset_block, key, now, argv)
end

-- Concurrency (@ConcurrencyLimit): it reads its own block; a block set by hand is written
-- over any earlier one (its key keeps no levels).
local function limiterConcurrencyLimit(key, now, argv)
--- @include "../../../algorithms/concurrency-limit/concurrency-limit.lua"
end

local function limiterConcurrencyLimitPeek(key, now, argv)
  return peek_state(limiterConcurrencyLimit, zset_block, key, now, argv)
end

local function limiterConcurrencyLimitBlock(key, now, argv)
  return block_state(zset_block, key, now, argv, true)
end

-- Leaky bucket (@LeakyBucketLimit).
local function limiterLeakyBucketLimit(key, now, argv)
--- @include "../../../algorithms/leaky-bucket-limit/leaky-bucket-limit.lua"
end

local limiterLeakyBucketLimitWithBlock = blockable_acquire(limiterLeakyBucketLimit, string_block)

local function limiterLeakyBucketLimitPeek(key, now, argv)
  return peek_state(limiterLeakyBucketLimitWithBlock, string_block, key, now, argv)
end

local function limiterLeakyBucketLimitRefund(key, now, argv)
--- @include "../../../algorithms/leaky-bucket-limit/leaky-bucket-limit.refund.lua"
end

local function limiterLeakyBucketLimitRefundWithBlock(key, now, argv)
  return adjust_state(limiterLeakyBucketLimitRefund, string_block, key, now, argv)
end

local function limiterLeakyBucketLimitCharge(key, now, argv)
--- @include "../../../algorithms/leaky-bucket-limit/leaky-bucket-limit.charge.lua"
end

local function limiterLeakyBucketLimitChargeWithBlock(key, now, argv)
  return adjust_state(limiterLeakyBucketLimitCharge, string_block, key, now, argv)
end

-- Approximate sliding window (@SlidingWindowLimit({ approximate: true })).
--- @include "../../../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.roll.lua"
local function limiterApproximateSlidingWindowLimit(key, now, argv)
--- @include "../../../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.lua"
end

local limiterApproximateSlidingWindowLimitWithBlock = blockable_acquire(limiterApproximateSlidingWindowLimit, string_block)

local function limiterApproximateSlidingWindowLimitPeek(key, now, argv)
  return peek_state(limiterApproximateSlidingWindowLimitWithBlock, string_block, key, now, argv)
end

local function limiterApproximateSlidingWindowLimitRefund(key, now, argv)
--- @include "../../../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.refund.lua"
end

local function limiterApproximateSlidingWindowLimitRefundWithBlock(key, now, argv)
  return adjust_state(limiterApproximateSlidingWindowLimitRefund, string_block, key, now, argv)
end

local function limiterApproximateSlidingWindowLimitCharge(key, now, argv)
--- @include "../../../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.charge.lua"
end

local function limiterApproximateSlidingWindowLimitChargeWithBlock(key, now, argv)
  return adjust_state(limiterApproximateSlidingWindowLimitCharge, string_block, key, now, argv)
end

-- Calendar quota (@QuotaLimit): its cycles come from the app, Redis's clock picks one.
local function limiterQuotaLimit(key, now, argv)
--- @include "../../../algorithms/quota-limit/quota-limit.lua"
end

local limiterQuotaLimitWithBlock = blockable_acquire(limiterQuotaLimit, string_block)

local function limiterQuotaLimitPeek(key, now, argv)
  return peek_state(limiterQuotaLimitWithBlock, string_block, key, now, argv)
end

-- Coalesced acquires (coalescing.ts): n requests of one limit on one key, decided
-- in a row by the algorithm's <folder>.coalesced.lua, with one read and one write of the key.
--- @include "../../../algorithms/state-ops/coalesced.lua"
--- @include "../../../algorithms/rate-limit/rate-limit.coalesced.lua"
--- @include "../../../algorithms/count-limit/count-limit.coalesced.lua"
--- @include "../../../algorithms/sliding-window-limit/sliding-window-limit.coalesced.lua"
--- @include "../../../algorithms/leaky-bucket-limit/leaky-bucket-limit.coalesced.lua"
--- @include "../../../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.coalesced.lua"

local function limiterRateLimitCoalesced(key, now, argv)
  return coalesced_acquire(rate_limit_coalesced, limiterRateLimitWithBlock, string_block, key, now, argv)
end

local function limiterCountLimitCoalesced(key, now, argv)
  return coalesced_acquire(count_limit_coalesced, limiterCountLimitWithBlock, string_block, key, now, argv)
end

local function limiterSlidingWindowLimitCoalesced(key, now, argv)
  return coalesced_acquire(sliding_window_limit_coalesced, limiterSlidingWindowLimitWithBlock, zset_block, key, now, argv)
end

local function limiterLeakyBucketLimitCoalesced(key, now, argv)
  return coalesced_acquire(leaky_bucket_limit_coalesced, limiterLeakyBucketLimitWithBlock, string_block, key, now, argv)
end

local function limiterApproximateSlidingWindowLimitCoalesced(key, now, argv)
  return coalesced_acquire(approximate_sliding_window_limit_coalesced, limiterApproximateSlidingWindowLimitWithBlock, string_block, key, now, argv)
end

-- What an entry's index names: the functions above by the name the store finds them by
-- (an algorithm's luaName, else its commandName: script.ts). Appended to only: a
-- new algorithm adds its entries at the end, the others keep their indexes.
local algorithms = {
  limiterRateLimitWithBlock,
  limiterRateLimitPeek,
  reset_key,
  block_string_block_key,
  limiterRateLimitRefundWithBlock,
  limiterRateLimitChargeWithBlock,
  limiterCountLimitWithBlock,
  limiterCountLimitPeek,
  limiterCountLimitRefundWithBlock,
  limiterCountLimitChargeWithBlock,
  limiterSlidingWindowLimitWithBlock,
  limiterSlidingWindowLimitPeek,
  block_zset_block_key,
  limiterSlidingWindowLimitRefundWithBlock,
  limiterSlidingWindowLimitChargeWithBlock,
  limiterConcurrencyLimit,
  limiterConcurrencyLimitPeek,
  limiterConcurrencyLimitBlock,
  limiterLeakyBucketLimitWithBlock,
  limiterLeakyBucketLimitPeek,
  limiterLeakyBucketLimitRefundWithBlock,
  limiterLeakyBucketLimitChargeWithBlock,
  limiterApproximateSlidingWindowLimitWithBlock,
  limiterApproximateSlidingWindowLimitPeek,
  limiterApproximateSlidingWindowLimitRefundWithBlock,
  limiterApproximateSlidingWindowLimitChargeWithBlock,
  limiterRateLimitCoalesced,
  limiterCountLimitCoalesced,
  limiterSlidingWindowLimitCoalesced,
  limiterLeakyBucketLimitCoalesced,
  limiterApproximateSlidingWindowLimitCoalesced,
  limiterQuotaLimitWithBlock,
  limiterQuotaLimitPeek,
}

--- @include "engine.lua"

-- The library's two functions, named for its version so that two releases of the app load
-- theirs side by side: the engine on declared keys, and the engine on one Cluster node's
-- keys of several slots (its keys at the head of its arguments).
redis.register_function('__LIBRARY__', engine)
redis.register_function{
  function_name = '__LIBRARY___across_slots',
  callback = engine_across_slots,
  flags = {'allow-cross-slot-keys'},
}
