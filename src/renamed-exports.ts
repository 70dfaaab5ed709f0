// The public names each algorithm had before it took its decorator's (issue 22). They stay,
// so no user's import breaks; each is the new name itself, not a copy.
import { RateLimiter } from './algorithms/rate-limit/rate-limit.definition';
import { RateLimiterOptions } from './algorithms/rate-limit/rate-limit.model';
import { CountLimiterOptions } from './algorithms/count-limit/count-limit.model';
import { SlidingWindowLimiterOptions } from './algorithms/sliding-window-limit/sliding-window-limit.model';
import { LeakyBucketLimiterOptions } from './algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { ConcurrencyLimiterOptions } from './algorithms/concurrency-limit/concurrency-limit.model';

/** @deprecated Use `RateLimiter`, named like `@RateLimit` and `factory.rateLimiter`. */
export const TokenBucketLimiter = RateLimiter;
/** @deprecated Use `RateLimiter`, named like `@RateLimit` and `factory.rateLimiter`. */
export type TokenBucketLimiter = RateLimiter;
/** @deprecated Use `RateLimiterOptions`. */
export type TokenBucketOptions = RateLimiterOptions;
/** @deprecated Use `CountLimiterOptions`. */
export type FixedWindowOptions = CountLimiterOptions;
/** @deprecated Use `SlidingWindowLimiterOptions`. */
export type SlidingWindowOptions = SlidingWindowLimiterOptions;
/** @deprecated Use `LeakyBucketLimiterOptions`. */
export type LeakyBucketOptions = LeakyBucketLimiterOptions;
/** @deprecated Use `ConcurrencyLimiterOptions`. */
export type ConcurrencyOptions = ConcurrencyLimiterOptions;
