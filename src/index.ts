// The public API. Anything not exported here is internal.
export type { Decision } from './contracts/decision';
export type { Duration, Seconds } from './algorithms/duration';
export type { LimiterAlgorithm, MemoryStep } from './algorithms/limiter-algorithm';
export type { TokenBucketOptions } from './algorithms/token-bucket/token-bucket.model';
export type { FixedWindowOptions } from './algorithms/fixed-window/fixed-window.model';
export { LimiterConfigError } from './errors/limiter-config.error';
export { StoreUnavailableError } from './errors/store-unavailable.error';
export { LimiterStore } from './stores/limiter-store';
export { MemoryStore } from './stores/memory.store';
export type { MemoryStoreOptions, LimiterClock } from './stores/memory.store';
export { RedisStore } from './stores/redis.store';
export type { RedisStoreOptions } from './stores/redis.store';
export { RateLimiterFactory } from './limiter/rate-limiter.factory';
export type { KeyedOptions } from './limiter/rate-limiter.factory';
export { TokenBucketLimiter } from './algorithms/token-bucket/token-bucket.definition';
export type { TryAcquireOptions } from './algorithms/token-bucket/token-bucket.definition';
export { CountLimiter } from './algorithms/fixed-window/fixed-window.definition';
export type { RateLimiterModuleOptions } from './rate-limiter.options';
export { RATE_LIMITER_OPTIONS } from './rate-limiter.module-definition';
export type { RateLimiterModuleAsyncOptions } from './rate-limiter.module-definition';
export type { LimiterCacheOptions } from './limiter/limiter-cache';
export { RateLimiterModule } from './rate-limiter.module';
export type { StoreErrorPolicy, HeadersMode } from './rate-limiter.options';
export { RateLimit } from './decorators/token-bucket.decorator';
export type { RateLimitOptions } from './decorators/token-bucket.decorator';
export { CountLimit } from './decorators/fixed-window.decorator';
export type { CountLimitOptions } from './decorators/fixed-window.decorator';
export { SkipRateLimit } from './decorators/skip-rate-limit.decorator';
export type { CostOptions, KeyOptions } from './contracts/limit-definition';
export { LimitType } from './contracts/limit-type.enum';
export { KeyTemplateSyntaxError } from './keys/key-template.parser';
export {
  KeyValueMissingError,
  KeyValueInvalidError,
  KeyValueConflictError,
} from './keys/key-template.evaluator';
export { RateLimitGuard } from './guard/rate-limit.guard';
export { RateLimitInterceptor } from './after-handler/rate-limit.interceptor';
export type { DefaultLimit } from './defaults/default-limits';
export { RateLimitExceededException } from './errors/rate-limit-exceeded.exception';
export type { RateLimitExceededBody } from './errors/rate-limit-exceeded.exception';
export {
  RateLimitProblemException,
  QUOTA_EXCEEDED_TYPE,
} from './errors/rate-limit-problem.exception';
export type { RateLimitProblemBody } from './errors/rate-limit-problem.exception';
export { SlidingWindowLimit } from './decorators/sliding-window.decorator';
export type { SlidingWindowLimitOptions } from './decorators/sliding-window.decorator';
export { ConcurrencyLimit } from './decorators/concurrency.decorator';
export type { ConcurrencyLimitOptions } from './decorators/concurrency.decorator';
export { LeakyBucketLimit } from './decorators/leaky-bucket.decorator';
export type { LeakyBucketLimitOptions } from './decorators/leaky-bucket.decorator';
export { SlidingWindowLimiter } from './algorithms/sliding-window/sliding-window.definition';
export { ApproximateSlidingWindowLimiter } from './algorithms/approximate-sliding-window/approximate-sliding-window.definition';
export { LeakyBucketLimiter } from './algorithms/leaky-bucket/leaky-bucket.definition';
export { ConcurrencyLimiter } from './algorithms/concurrency/concurrency.definition';
export type { ConcurrencySlot } from './algorithms/concurrency/concurrency.definition';
export type { SlidingWindowOptions } from './algorithms/sliding-window/sliding-window.model';
export type { ConcurrencyOptions } from './algorithms/concurrency/concurrency.model';
export type { LeakyBucketOptions } from './algorithms/leaky-bucket/leaky-bucket.model';
export type { RateLimitEvent } from './contracts/rate-limit-event';
export { KeyStateLimiter } from './algorithms/state-ops/key-state-limiter';
export type { LimitState } from './algorithms/state-ops/state-ops.model';
export type { CountMode, StateOptions } from './algorithms/state-ops/state-options';
export { CountOutcomeInterceptor } from './after-handler/count-outcome.interceptor';
export type { RateLimitOutcome } from './contracts/rate-limit-event';
export type { LimitContext, Resolvable, SkipPredicate } from './contracts/limit-context';
export type { HandlerOutcome, SettleFunction } from './contracts/limit-context';
export type { ResolvableOptions } from './contracts/limit-context';
export type { MetricsOptions } from './metrics/decision-metrics';
export { RateLimiterAdminModule } from './admin/rate-limiter-admin.module';
export type { RateLimiterAdminOptions } from './admin/admin.options';
export { LiveSettings } from './admin/live-settings';
export type { LimitOverride, NetworkLists } from './admin/live-settings';
