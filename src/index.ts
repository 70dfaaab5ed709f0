// The public API. Anything not exported here is internal.
export type { Decision } from './algorithms/decision';
export type { LimiterAlgorithm, MemoryStep } from './algorithms/limiter-algorithm';
export type { TokenBucketOptions } from './algorithms/token-bucket/token-bucket.model';
export type { FixedWindowOptions } from './algorithms/fixed-window/fixed-window.model';
export { LimiterConfigError } from './errors/limiter-config.error';
export { StoreUnavailableError } from './errors/store-unavailable.error';
export { LimiterStore } from './stores/limiter-store';
export { MemoryStore } from './stores/memory.store';
export type { MemoryStoreOptions } from './stores/memory.store';
export { RedisStore } from './stores/redis.store';
export type { RedisStoreOptions } from './stores/redis.store';
export { RateLimiterFactory } from './limiter/rate-limiter.factory';
export { TokenBucketLimiter } from './limiter/token-bucket.limiter';
export type { TryAcquireOptions } from './limiter/token-bucket.limiter';
export { CountLimiter } from './limiter/count.limiter';
export type { RateLimiterModuleOptions } from './rate-limiter.options';
export { RATE_LIMITER_OPTIONS } from './rate-limiter.module-definition';
export { RateLimiterModule } from './rate-limiter.module';
export type { StoreErrorPolicy, HeadersMode } from './rate-limiter.options';
export { RateLimit } from './decorators/rate-limit.decorator';
export type { RateLimitOptions } from './decorators/rate-limit.decorator';
export { CountLimit } from './decorators/count-limit.decorator';
export type { CountLimitOptions } from './decorators/count-limit.decorator';
export { SkipRateLimit } from './decorators/skip-rate-limit.decorator';
export type { KeyOptions } from './decorators/limit-definition';
export { LimitType } from './keys/limit-type.enum';
export { KeyTemplateSyntaxError } from './keys/key-template.parser';
export {
  KeyValueMissingError,
  KeyValueInvalidError,
  KeyValueConflictError,
} from './keys/key-template.evaluator';
export { RateLimitGuard } from './guard/rate-limit.guard';
export { RateLimitExceededException } from './errors/rate-limit-exceeded.exception';
export type { RateLimitExceededBody } from './errors/rate-limit-exceeded.exception';
export { SlidingWindowLimit } from './decorators/sliding-window-limit.decorator';
export type { SlidingWindowLimitOptions } from './decorators/sliding-window-limit.decorator';
export { ConcurrencyLimit } from './decorators/concurrency-limit.decorator';
export type { ConcurrencyLimitOptions } from './decorators/concurrency-limit.decorator';
export { LeakyBucketLimit } from './decorators/leaky-bucket-limit.decorator';
export type { LeakyBucketLimitOptions } from './decorators/leaky-bucket-limit.decorator';
export { SlidingWindowLimiter } from './limiter/sliding-window.limiter';
export { LeakyBucketLimiter } from './limiter/leaky-bucket.limiter';
export { ConcurrencyLimiter } from './limiter/concurrency.limiter';
export type { ConcurrencySlot } from './limiter/concurrency.limiter';
export type { SlidingWindowOptions } from './algorithms/sliding-window/sliding-window.model';
export type { ConcurrencyOptions } from './algorithms/concurrency/concurrency.model';
export type { LeakyBucketOptions } from './algorithms/leaky-bucket/leaky-bucket.model';
export type { RateLimitEvent } from './guard/rate-limit-event';
