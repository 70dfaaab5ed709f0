import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { ConcurrencyLimitOptions } from './decorators/concurrency-limit.decorator';
import type { CountLimitOptions } from './decorators/count-limit.decorator';
import type { LeakyBucketLimitOptions } from './decorators/leaky-bucket-limit.decorator';
import type { SlidingWindowLimitOptions } from './decorators/sliding-window-limit.decorator';
import type { RateLimitOptions } from './decorators/rate-limit.decorator';
import type { SkipPredicate } from './contracts/limit-context';
import { RateLimitEvent } from './contracts/rate-limit-event';
import type { MetricsOptions } from './metrics/decision-metrics';
import { LimiterStore } from './stores/limiter-store';
import type { RequestReadingOptions } from './context/request-reading.options';

import type { StoreErrorPolicy } from './contracts/store-error-policy';

export type { StoreErrorPolicy } from './contracts/store-error-policy';

/** @publicApi */
export interface LimiterCacheOptions {
  /** Most limiter instances kept per algorithm, default 10_000. */
  max?: number;
  /** Milliseconds an unused instance is kept; default none (`max` alone bounds the memory). */
  ttl?: number;
}

/**
 * An app-wide limit (`RateLimiterModule.forRoot({ defaults })`): the options of the
 * decorator that `algorithm` names. It applies to every handler the guard sees, each with
 * its own key, by client IP unless `limitType` or `key` says otherwise. A decorator with
 * the same `name` replaces it on its handler or class.
 *
 * @example
 * ```ts
 * RateLimiterModule.forRoot({
 *   defaults: [
 *     { name: 'short', algorithm: 'countLimit', limit: 3, period: 1 },
 *     { name: 'long', algorithm: 'countLimit', limit: 100, period: 60 },
 *   ],
 * })
 * ```
 * @publicApi
 */
export type DefaultLimit =
  | ({ algorithm: 'rateLimit' } & RateLimitOptions)
  | ({ algorithm: 'countLimit' } & CountLimitOptions)
  | ({ algorithm: 'slidingWindowLimit' } & SlidingWindowLimitOptions)
  | ({ algorithm: 'concurrencyLimit' } & ConcurrencyLimitOptions)
  | ({ algorithm: 'leakyBucketLimit' } & LeakyBucketLimitOptions);

/** Which rate-limit headers limited responses carry. */
export type HeadersMode = 'legacy' | 'ietf' | 'both' | false;

/**
 * Options of `RateLimiterModule.forRoot`.
 *
 * @example
 * ```ts
 * RateLimiterModule.forRoot({ redis: process.env.REDIS_URL, keyPrefix: 'api:' })
 * ```
 * @publicApi
 */
export interface RateLimiterModuleOptions extends RequestReadingOptions {
  /**
   * A Redis URL, ioredis options, or an ioredis client (standalone, Sentinel, Cluster).
   * A client passed in stays open on shutdown; one created from a URL or options is closed.
   * Absent (and no `store`): the in-memory store, for one process only.
   */
  redis?: string | RedisOptions | Redis | Cluster;
  /**
   * App-wide limits on every handler the guard sees (controllers, resolvers, guarded
   * gateways), each handler with its own key, by client IP unless a default says otherwise.
   * A decorator with the same `name` replaces a default on its handler or class;
   * `@SkipRateLimit('name')` drops it there.
   * @see README "Defaults for every handler"
   */
  defaults?: DefaultLimit[];
  /** A custom store instead of `redis`. */
  store?: LimiterStore;
  /** Prepended to every key, default ''. */
  keyPrefix?: string;
  /** LRU of programmatic limiter instances: `max` keys per algorithm (default 10_000), optional idle `ttl` in ms. */
  cache?: LimiterCacheOptions;
  /** When the store fails: 'allow' (default, fail open), 'deny' (503) or 'fallback' (in-memory insurance). */
  onStoreError?: StoreErrorPolicy;
  /**
   * Milliseconds a decision may wait on the store before `onStoreError` applies, default 200.
   * After 3 timeouts in a row the store counts as down and decisions no longer wait (one
   * probe every 250 ms); a Redis that resumes skips the decisions nobody waits for any more.
   * @see README "When Redis fails"
   */
  storeTimeout?: number;
  /** Rate-limit headers: 'legacy' (default) X-RateLimit-*, 'ietf' RateLimit/RateLimit-Policy, 'both', or false. */
  headers?: HeadersMode;
  /**
   * Denied HTTP requests answer `application/problem+json` (RFC 9457) with the IETF draft's
   * `quota-exceeded` problem type and the names of the limits that denied it, instead of
   * the JSON body `{ statusCode, message, retryAfter }`. Default false.
   */
  problemDetails?: boolean;
  /** Register `RateLimitGuard` as a global guard (APP_GUARD), default true. */
  global?: boolean;
  /**
   * Called with every outcome of every limit, from the guard and from the module's
   * factory: allowed, denied, shadow-denied, skipped, store-error. Keep it fast (it runs
   * on the request path); an error it throws is logged and ignored.
   */
  onDecision?: (event: RateLimitEvent) => void;
  /** Applies to every limit: when it returns true, the request's limits are not evaluated. */
  skip?: SkipPredicate;
  /** Every limit evaluated and counted but never enforced (a decorator's `shadow` wins). */
  shadow?: boolean;
  /**
   * OpenTelemetry metrics through the global meter provider, when `@opentelemetry/api` is
   * installed: counter `ratelimit.decisions` {`ratelimit.limit`, `ratelimit.outcome`} and
   * histogram `ratelimit.store.duration` (seconds per engine call). `false` turns them off.
   * @see README "Metrics with OpenTelemetry"
   */
  metrics?: false | MetricsOptions;
  /**
   * Networks never limited, in CIDR (`'10.0.0.0/8'`, `'2001:db8::/32'`; a bare address is
   * one host): every limit is reported `skipped` and costs the store nothing. The client IP
   * is the one IP keys count (`resolveIp`, else `req.ip` with the app's trust-proxy rules).
   * @see README "Allow and deny networks"
   */
  allow?: readonly string[];
  /** Networks refused with 403 before any limit is counted, in CIDR; `deny` wins over `allow`. */
  deny?: readonly string[];
}

export const DEFAULT_STORE_TIMEOUT_MS = 200;
