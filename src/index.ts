// The public API, by topic. Anything not exported here is internal.

// The module and its options.
export { RateLimiterModule } from './rate-limiter.module';
export { RATE_LIMITER_OPTIONS } from './rate-limiter.module-definition';
export type { RateLimiterModuleAsyncOptions } from './rate-limiter.module-definition';
export type {
  DefaultLimit,
  HeadersMode,
  LimiterCacheOptions,
  RateLimiterModuleOptions,
  StoreErrorPolicy,
} from './rate-limiter.options';
export type { Duration, Seconds } from './algorithms/duration';

// Decorators: a limit on a handler or a class.
export { RateLimit } from './decorators/rate-limit.decorator';
export type { RateLimitOptions } from './decorators/rate-limit.decorator';
export { CountLimit } from './decorators/count-limit.decorator';
export type { CountLimitOptions } from './decorators/count-limit.decorator';
export { SlidingWindowLimit } from './decorators/sliding-window-limit.decorator';
export type { SlidingWindowLimitOptions } from './decorators/sliding-window-limit.decorator';
export { ConcurrencyLimit } from './decorators/concurrency-limit.decorator';
export type { ConcurrencyLimitOptions } from './decorators/concurrency-limit.decorator';
export { LeakyBucketLimit } from './decorators/leaky-bucket-limit.decorator';
export type { LeakyBucketLimitOptions } from './decorators/leaky-bucket-limit.decorator';
export { SkipRateLimit } from './decorators/skip-rate-limit.decorator';
export type { CostOptions, KeyOptions } from './contracts/limit-definition';
export type { CountMode, StateOptions } from './algorithms/state-ops/state-options';
export type { LeaseOptions } from './algorithms/state-ops/lease-option';

// Keys, and what a limit reads of its request.
export { LimitType } from './contracts/limit-type.enum';
export { KeyTemplateSyntaxError } from './keys/key-template.parser';
export {
  KeyValueMissingError,
  KeyValueInvalidError,
  KeyValueConflictError,
} from './keys/key-template.evaluator';
export type {
  HandlerOutcome,
  LimitContext,
  Resolvable,
  ResolvableOptions,
  SettleFunction,
  SkipPredicate,
} from './contracts/limit-context';

// The request: the guard, the interceptors, what a client is told.
export { RateLimitGuard } from './request/rate-limit.guard';
export { RateLimitInterceptor } from './request/rate-limit.interceptor';
export { CountOutcomeInterceptor } from './request/count-outcome.interceptor';
export { RateLimitExceededException } from './errors/rate-limit-exceeded.exception';
export type { RateLimitExceededBody } from './errors/rate-limit-exceeded.exception';
export {
  RateLimitProblemException,
  QUOTA_EXCEEDED_TYPE,
} from './errors/rate-limit-problem.exception';
export type { RateLimitProblemBody } from './errors/rate-limit-problem.exception';
export type {
  RateLimitErrorDetail,
  RateLimitErrorMessage,
} from './errors/rate-limit-error-message';
export type { RateLimitEvent, RateLimitOutcome } from './contracts/rate-limit-event';

// Limiters in code: the factory and each algorithm's limiter.
export { RateLimiterFactory } from './limiter/rate-limiter.factory';
export type { KeyedOptions } from './limiter/rate-limiter.factory';
export type { Decision } from './contracts/decision';
export { RateLimiter } from './algorithms/rate-limit/rate-limit.definition';
export type { TryAcquireOptions } from './algorithms/rate-limit/rate-limit.definition';
export type { RateLimiterOptions } from './algorithms/rate-limit/rate-limit.model';
export { CountLimiter } from './algorithms/count-limit/count-limit.definition';
export type { CountLimiterOptions } from './algorithms/count-limit/count-limit.model';
export { SlidingWindowLimiter } from './algorithms/sliding-window-limit/sliding-window-limit.definition';
export type { SlidingWindowLimiterOptions } from './algorithms/sliding-window-limit/sliding-window-limit.model';
export { ApproximateSlidingWindowLimiter } from './algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
export { LeakyBucketLimiter } from './algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
export type { LeakyBucketLimiterOptions } from './algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
export { ConcurrencyLimiter } from './algorithms/concurrency-limit/concurrency-limit.definition';
export type {
  ConcurrencyLimiterOptions,
  ConcurrencySlot,
} from './algorithms/concurrency-limit/concurrency-limit.model';
export { KeyStateLimiter } from './algorithms/state-ops/key-state-limiter';
export type { LimitState } from './algorithms/state-ops/state-ops.model';
export type { LimiterAlgorithm, MemoryStep } from './algorithms/limiter-algorithm';
export type { DecisionCall } from './algorithms/decision-call';
export { LimiterConfigError } from './errors/limiter-config.error';

// Calendar quotas.
export { QuotaLimit } from './decorators/quota-limit.decorator';
export type { QuotaLimitOptions } from './decorators/quota-limit.decorator';
export { QuotaLimiter } from './algorithms/quota-limit/quota-limit.definition';
export type { QuotaConsumption, QuotaUsage } from './algorithms/quota-limit/quota-limit.definition';
export type { QuotaLimiterOptions } from './algorithms/quota-limit/quota-limit.model';
export type { QuotaFacts } from './contracts/decision';

// Stores: where decisions are made.
export { LimiterStore } from './stores/limiter-store';
export { MemoryStore } from './stores/memory/memory.store';
export type { MemoryStoreOptions, LimiterClock } from './stores/memory/memory.store';
export { RedisStore } from './stores/redis/redis.store';
export type { RedisStoreOptions } from './stores/redis/redis.store';
export type { RedisCallMode } from './stores/redis/engine/call-mode';
export { StoreUnavailableError } from './errors/store-unavailable.error';

// The server's own limit under overload.
export { AdaptiveConcurrencyLimit } from './decorators/adaptive-concurrency-limit.decorator';
export type {
  AdaptiveConcurrencyLimitOptions,
  OverloadPriority,
} from './overload/overload.options';
export { OverloadException, OverloadProblemException } from './errors/overload.exception';
export type { OverloadBody, OverloadProblemBody } from './errors/overload.exception';

// Upstreams: the calls the app makes.
export { Upstream } from './upstream/upstream';
export type { UpstreamStatus } from './upstream/upstream';
export type { UpstreamOptions, UpstreamCallOptions } from './upstream/upstream.options';
export { UpstreamBusyError } from './upstream/upstream-busy.error';
export { UpstreamLimit } from './decorators/upstream-limit.decorator';
export type { UpstreamLimitOptions } from './decorators/upstream-limit.decorator';

// Operating it: health, metrics, the admin page and live settings.
export { RateLimiterHealthIndicator } from './health/rate-limiter.health-indicator';
export type { RateLimiterHealth } from './health/rate-limiter.health-indicator';
export type { MetricsOptions } from './metrics/decision-metrics';
export { RateLimiterAdminModule } from './admin/rate-limiter-admin.module';
export type { RateLimiterAdminOptions } from './admin/admin.options';
export { LiveSettings } from './admin/live-settings';
export type { LimitOverride, NetworkLists } from './admin/live-settings';
