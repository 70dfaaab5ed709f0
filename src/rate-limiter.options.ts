import type { QuotaLimitOptions } from './decorators/quota-limit.decorator';
import type { UpstreamOptions } from './upstream/upstream.options';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { RedisCallMode } from './stores/redis/engine/call-mode';
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
import type { RateLimitErrorMessage } from './errors/rate-limit-error-message';
import type { AdaptiveConcurrencyLimitOptions } from './overload/overload.options';

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
  | ({ algorithm: 'leakyBucketLimit' } & LeakyBucketLimitOptions)
  | ({ algorithm: 'quotaLimit' } & QuotaLimitOptions);

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
   * The in-memory store is meant (one process, or limits per process on purpose): with it, a
   * `redis` option that is present but empty (`redis: process.env.REDIS_URL` with the variable
   * unset) starts under `NODE_ENV=production`, which otherwise stops start-up, and no warning
   * is logged. Not together with a `redis` that is set.
   * @see docs/options.md
   */
  inMemory?: boolean;
  /**
   * How scripts are sent to Redis: `'auto'` (default: one call per connection, or one per
   * hash slot where the endpoint refuses keys of several slots in one script, as found at
   * start-up, after each reconnect and by any refusal), `'per-slot'` (always one per hash slot,
   * every key declared: proxies, ElastiCache Serverless, Dragonfly) or `'cross-slot'` (no
   * probe; a refusal still turns it to per-slot).
   * @see docs/managed-redis.md
   */
  redisCalls?: RedisCallMode;
  /**
   * APIs the app calls, each with the budget every server shares for it:
   * `[{ name: 'openai', rate: 100, capacity: 10, timeout: '30s' }]`, then
   * `factory.upstream('openai')` or `@UpstreamLimit('openai')` (docs/upstreams.md).
   */
  upstreams?: UpstreamOptions[];
  /**
   * App-wide limits on every handler the guard sees (controllers, resolvers, guarded
   * gateways), each handler with its own key, by client IP unless a default says otherwise.
   * A decorator with the same `name` replaces a default on its handler or class;
   * `@SkipRateLimit('name')` drops it there.
   * @see docs/options.md "Defaults for every handler"
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
   * @see docs/operations.md "When Redis fails"
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
  /**
   * The message of every 429 (the JSON body's `message`, the GraphQL error's, the RPC and
   * WebSocket error's; a problem document's `detail`): a text, or a function of the
   * denial's context and detail (the limit's name, its quota, the retry time). Default
   * 'Too Many Requests'. A whole custom response is an exception filter's job (docs/errors.md).
   *
   * @example
   * ```ts
   * errorMessage: (context, { name, retryAfter }) => `Slow down (${name}): retry in ${retryAfter}s`
   * ```
   */
  errorMessage?: RateLimitErrorMessage;
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
   * installed: counter `ratelimit.decisions` {`ratelimit.limit`, `ratelimit.handler`,
   * `ratelimit.outcome`} and histogram `ratelimit.store.duration` (seconds per engine call).
   * `false` turns them off.
   * @see docs/operations.md "Metrics with OpenTelemetry"
   */
  metrics?: false | MetricsOptions;
  /**
   * Networks never limited, in CIDR (`'10.0.0.0/8'`, `'2001:db8::/32'`; a bare address is
   * one host): every limit is reported `skipped` and costs the store nothing. The client IP
   * is the one IP keys count (`resolveIp`, else `req.ip` with the app's trust-proxy rules).
   * @see docs/operations.md "Allow and deny networks"
   */
  allow?: readonly string[];
  /** Networks refused with 403 before any limit is counted, in CIDR; `deny` wins over `allow`. */
  deny?: readonly string[];
  /**
   * A time option given as a bare number from 1,000 up (`period: 60000`, `block: 3600`) fails
   * start-up naming the class, method and option, instead of the warning it logs by default:
   * such numbers are seconds here, and more often meant as milliseconds. `'1m'`, `'1h'`
   * and `'1d'` still say long times plainly. Default false.
   */
  strictDurations?: boolean;
  /**
   * The overload guard on every handler (a method's or class's `@AdaptiveConcurrencyLimit`
   * wins): one limit for the whole process on requests in flight, learned from latency;
   * over it, 503. `{}` takes every default.
   * @see docs/overload.md
   */
  overload?: AdaptiveConcurrencyLimitOptions;
}

export const DEFAULT_STORE_TIMEOUT_MS = 200;
