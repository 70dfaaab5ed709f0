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
