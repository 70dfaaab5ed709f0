// The public API. Anything not exported here is internal.
export type { Decision } from './contracts/decision';
export type { Duration, Seconds } from './algorithms/duration';
export type { LimiterAlgorithm, MemoryStep } from './algorithms/limiter-algorithm';
export type { RateLimiterOptions } from './algorithms/rate-limit/rate-limit.model';
export type { CountLimiterOptions } from './algorithms/count-limit/count-limit.model';
export { LimiterConfigError } from './errors/limiter-config.error';
export { StoreUnavailableError } from './errors/store-unavailable.error';
export { LimiterStore } from './stores/limiter-store';
export type { DecisionCall } from './algorithms/decision-call';
export { MemoryStore } from './stores/memory/memory.store';
export type { MemoryStoreOptions, LimiterClock } from './stores/memory/memory.store';
export { RedisStore } from './stores/redis/redis.store';
export type { RedisStoreOptions } from './stores/redis/redis.store';
export type { RedisCallMode } from './stores/redis/engine/call-mode';
export { RateLimiterHealthIndicator } from './health/rate-limiter.health-indicator';
export type { RateLimiterHealth } from './health/rate-limiter.health-indicator';
export { RateLimiterFactory } from './limiter/rate-limiter.factory';
export type { KeyedOptions } from './limiter/rate-limiter.factory';
export { RateLimiter } from './algorithms/rate-limit/rate-limit.definition';
export type { TryAcquireOptions } from './algorithms/rate-limit/rate-limit.definition';
export { CountLimiter } from './algorithms/count-limit/count-limit.definition';
export type { RateLimiterModuleOptions } from './rate-limiter.options';
export { RATE_LIMITER_OPTIONS } from './rate-limiter.module-definition';
export type { RateLimiterModuleAsyncOptions } from './rate-limiter.module-definition';
export type { LimiterCacheOptions } from './rate-limiter.options';
export { RateLimiterModule } from './rate-limiter.module';
export type { StoreErrorPolicy, HeadersMode } from './rate-limiter.options';
export { RateLimit } from './decorators/rate-limit.decorator';
export type { RateLimitOptions } from './decorators/rate-limit.decorator';
export { CountLimit } from './decorators/count-limit.decorator';
export type { CountLimitOptions } from './decorators/count-limit.decorator';
export { SkipRateLimit } from './decorators/skip-rate-limit.decorator';
export type { CostOptions, KeyOptions } from './contracts/limit-definition';
export { LimitType } from './contracts/limit-type.enum';
export { KeyTemplateSyntaxError } from './keys/key-template.parser';
export {
  KeyValueMissingError,
  KeyValueInvalidError,
  KeyValueConflictError,
} from './keys/key-template.evaluator';
export { RateLimitGuard } from './request/rate-limit.guard';
export { RateLimitInterceptor } from './request/rate-limit.interceptor';
export type { DefaultLimit } from './rate-limiter.options';
export { RateLimitExceededException } from './errors/rate-limit-exceeded.exception';
export type { RateLimitExceededBody } from './errors/rate-limit-exceeded.exception';
export type {
  RateLimitErrorDetail,
  RateLimitErrorMessage,
} from './errors/rate-limit-error-message';
export {
  RateLimitProblemException,
  QUOTA_EXCEEDED_TYPE,
} from './errors/rate-limit-problem.exception';
export type { RateLimitProblemBody } from './errors/rate-limit-problem.exception';
export { SlidingWindowLimit } from './decorators/sliding-window-limit.decorator';
export type { SlidingWindowLimitOptions } from './decorators/sliding-window-limit.decorator';
export { ConcurrencyLimit } from './decorators/concurrency-limit.decorator';
export type { ConcurrencyLimitOptions } from './decorators/concurrency-limit.decorator';
export { LeakyBucketLimit } from './decorators/leaky-bucket-limit.decorator';
export type { LeakyBucketLimitOptions } from './decorators/leaky-bucket-limit.decorator';
export { SlidingWindowLimiter } from './algorithms/sliding-window-limit/sliding-window-limit.definition';
export { ApproximateSlidingWindowLimiter } from './algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
export { LeakyBucketLimiter } from './algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
export { ConcurrencyLimiter } from './algorithms/concurrency-limit/concurrency-limit.definition';
export type { ConcurrencySlot } from './algorithms/concurrency-limit/concurrency-limit.model';
export type { SlidingWindowLimiterOptions } from './algorithms/sliding-window-limit/sliding-window-limit.model';
export type { ConcurrencyLimiterOptions } from './algorithms/concurrency-limit/concurrency-limit.model';
export type { LeakyBucketLimiterOptions } from './algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
export type { RateLimitEvent } from './contracts/rate-limit-event';
export { KeyStateLimiter } from './algorithms/state-ops/key-state-limiter';
export type { LimitState } from './algorithms/state-ops/state-ops.model';
export type { CountMode, StateOptions } from './algorithms/state-ops/state-options';
export type { LeaseOptions } from './algorithms/state-ops/lease-option';
export { CountOutcomeInterceptor } from './request/count-outcome.interceptor';
export type { RateLimitOutcome } from './contracts/rate-limit-event';
export type { LimitContext, Resolvable, SkipPredicate } from './contracts/limit-context';
export type { HandlerOutcome, SettleFunction } from './contracts/limit-context';
export type { ResolvableOptions } from './contracts/limit-context';
export type { MetricsOptions } from './metrics/decision-metrics';
export { RateLimiterAdminModule } from './admin/rate-limiter-admin.module';
export type { RateLimiterAdminOptions } from './admin/admin.options';
export { LiveSettings } from './admin/live-settings';
export type { LimitOverride, NetworkLists } from './admin/live-settings';
// Calendar quotas.
export { QuotaLimit } from './decorators/quota-limit.decorator';
export type { QuotaLimitOptions } from './decorators/quota-limit.decorator';
export { QuotaLimiter } from './algorithms/quota-limit/quota-limit.definition';
export type { QuotaConsumption, QuotaUsage } from './algorithms/quota-limit/quota-limit.definition';
export type { QuotaLimiterOptions } from './algorithms/quota-limit/quota-limit.model';
export type { QuotaFacts } from './contracts/decision';
export { AdaptiveConcurrencyLimit } from './decorators/adaptive-concurrency-limit.decorator';
export type {
  AdaptiveConcurrencyLimitOptions,
  OverloadPriority,
} from './overload/overload.options';
export { OverloadException, OverloadProblemException } from './errors/overload.exception';
export type { OverloadBody, OverloadProblemBody } from './errors/overload.exception';
export { Upstream } from './upstream/upstream';
export type { UpstreamStatus } from './upstream/upstream';
export type { UpstreamOptions, UpstreamCallOptions } from './upstream/upstream.options';
export { UpstreamBusyError } from './upstream/upstream-busy.error';
export { UpstreamLimit } from './decorators/upstream-limit.decorator';
export type { UpstreamLimitOptions } from './decorators/upstream-limit.decorator';
