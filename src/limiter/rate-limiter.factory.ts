import { Inject, Injectable, OnApplicationShutdown, Optional } from '@nestjs/common';
import { ConcurrencyLimiter } from '../algorithms/concurrency-limit/concurrency-limit.definition';
import { concurrencyLimitKind } from '../algorithms/concurrency-limit/concurrency-limit.definition';
import { ConcurrencyLimiterOptions } from '../algorithms/concurrency-limit/concurrency-limit.model';
import { CountLimiter } from '../algorithms/count-limit/count-limit.definition';
import { countLimitKind } from '../algorithms/count-limit/count-limit.definition';
import { LeaseOptions } from '../algorithms/state-ops/lease-option';
import { CountLimiterOptions } from '../algorithms/count-limit/count-limit.model';
import { LeakyBucketLimiter } from '../algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitKind } from '../algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { LeakyBucketLimiterOptions } from '../algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { LimitKind } from '../algorithms/limit-kind';
import { DecisionSource } from '../algorithms/decision-source';
import { limitKindFor, variantSwitches } from '../algorithms/registry';
import { SlidingWindowLimiter } from '../algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitKind } from '../algorithms/sliding-window-limit/sliding-window-limit.definition';
import { SlidingWindowLimiterOptions } from '../algorithms/sliding-window-limit/sliding-window-limit.model';
import { RateLimiter } from '../algorithms/rate-limit/rate-limit.definition';
import { rateLimitKind } from '../algorithms/rate-limit/rate-limit.definition';
import { RateLimiterOptions } from '../algorithms/rate-limit/rate-limit.model';
import { QuotaLimiter } from '../algorithms/quota-limit/quota-limit.definition';
import { quotaLimitKind } from '../algorithms/quota-limit/quota-limit.definition';
import { QuotaLimiterOptions } from '../algorithms/quota-limit/quota-limit.model';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { refuseUnknownOptions } from '../algorithms/option-rules';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { limiterMessages } from '../rate-limiter.messages';
import { customKeyPart } from '../keys/key-builder';
import { LimiterStore } from '../stores/limiter-store';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { FactoryDecisions } from './factory-decisions';
import { KindLimiters, kindLimiters } from './kind-limiters';
import type { LimiterCacheOptions } from '../rate-limiter.options';
import { RedisStore } from '../stores/redis/redis.store';
import { UpstreamMetrics } from '../metrics/upstream-metrics';
import { MemoryLearning, RedisLearning } from '../upstream/shared-learning';
import { MemorySlots, RedisSlots } from '../upstream/slot-book';
import { Upstream } from '../upstream/upstream';
import { UpstreamOptions } from '../upstream/upstream.options';
import { UpstreamRegistry } from '../upstream/upstream-registry';

/** The part of the module options the factory uses. */
interface RateLimiterFactoryOptions {
  keyPrefix?: string;
  cache?: LimiterCacheOptions;
  upstreams?: UpstreamOptions[];
  metrics?: object | false;
}

/**
 * A limiter's key. The Redis key is `keyPrefix + prefix + key`, the decorators' layout: the
 * default `prefix` is the matching decorator's ('rateLimit:' for `rateLimiter`), so two
 * algorithms given one key never share state, and `rateLimiter({ key: 'sms:42' })` is the
 * state of `@RateLimit({ key: 'sms:#{id}' })` for id 42.
 *
 * @publicApi
 */
export interface KeyedOptions {
  key: string;
  prefix?: string;
}

/**
 * Limiters for programmatic use, on the module's store. Instances are cached (LRU) by
 * algorithm, options and key, so asking twice for the same limiter is cheap.
 *
 * @example
 * ```ts
 * const limiter = factory.rateLimiter({ key: `report:${id}`, rate: 1 / 30, burst: 30 });
 * if (!(await limiter.tryAcquire())) throw new RateLimitExceededException();
 * ```
 *
 * @publicApi
 */
@Injectable()
export class RateLimiterFactory implements OnApplicationShutdown {
  private readonly caches = new Map<LimitKind, KindLimiters>();
  /**
   * Per method's kind: what is kept for it when it has no variants, so no option is read to
   * choose and one lookup finds it; null for a kind with variants.
   */
  private readonly plainKinds = new Map<LimitKind, KindLimiters | null>();
  private readonly keyPrefix: string;
  private readonly cacheOptions?: LimiterCacheOptions;
  /** What the limiters decide on: the module's store reports through the factory. */
  private readonly source: DecisionSource;
  private readonly upstreams: UpstreamRegistry;

  constructor(
    readonly store: LimiterStore,
    @Optional() @Inject(RATE_LIMITER_OPTIONS) options?: RateLimiterFactoryOptions,
    /** Where the state lives, under the failure policy's `store`: Redis shares upstreams' records. */
    @Optional() backend?: LimiterStore,
  ) {
    this.keyPrefix = options?.keyPrefix ?? '';
    this.cacheOptions = options?.cache;
    this.source = store instanceof FailurePolicyStore ? new FactoryDecisions(store) : store;
    // Upstream calls wait for the store itself, within their own timeout: under the failure
    // policy a slow answer would let a call through unbudgeted ('allow').
    const raw = backend ?? store;
    // The memory store's record keeps the store's time, as its decisions do (a test's clock).
    const onRedis = raw instanceof RedisStore;
    const storeNow = () => raw.currentTimeMs();
    const shared = onRedis ? new RedisLearning(raw.client) : new MemoryLearning(storeNow);
    const book = onRedis ? new RedisSlots(raw.client) : new MemorySlots(storeNow);
    const metrics = UpstreamMetrics.fromOption(options?.metrics);
    this.upstreams = new UpstreamRegistry(book, shared, this.keyPrefix, metrics);
    // A wrong upstream fails start-up, naming it and its option.
    for (const upstream of options?.upstreams ?? []) this.upstreams.declare(upstream);
  }

  /**
   * An upstream budget: the one declared with this name (`forRoot({ upstreams })`), or the one
   * these options declare (again: the same options return the same instance).
   *
   * @example
   * ```ts
   * const openai = factory.upstream('openai');
   * const answer = await openai.fetch('https://api.openai.com/v1/models');
   * ```
   */
  upstream(nameOrOptions: string | UpstreamOptions): Upstream {
    return typeof nameOrOptions === 'string'
      ? this.upstreams.get(nameOrOptions)
      : this.upstreams.declare(nameOrOptions);
  }

  /** Every upstream declared, for the admin page. */
  upstreamList(): Upstream[] {
    return this.upstreams.list();
  }

  /** Waiting upstream calls end (busy) and their timers stop. */
  onApplicationShutdown(): void {
    this.upstreams.close();
  }

  /** A token bucket: `rate` permits a second, `burst` seconds of them saved up. */
  rateLimiter(options: RateLimiterOptions & KeyedOptions & LeaseOptions): RateLimiter {
    return this.limiterFor(rateLimitKind, options);
  }

  /** A fixed-window counter: `limit` requests per `period` seconds. */
  countLimiter(options: CountLimiterOptions & KeyedOptions & LeaseOptions): CountLimiter {
    return this.limiterFor(countLimitKind, options);
  }

  /** An exact sliding-window log: at most `limit` requests within any `window` seconds. */
  slidingWindowLimiter(options: SlidingWindowLimiterOptions & KeyedOptions): SlidingWindowLimiter {
    return this.limiterFor(slidingWindowLimitKind, options);
  }

  /**
   * A concurrency limit: at most `max` requests in flight, each slot leased for `lease`
   * seconds. The instance holds no slots itself, so one cached instance serves every caller.
   */
  concurrencyLimiter(options: ConcurrencyLimiterOptions & KeyedOptions): ConcurrencyLimiter {
    return this.limiterFor(concurrencyLimitKind, options);
  }

  /** A leaky bucket (GCRA): `capacity` requests at once, then `rate` a second. */
  leakyBucketLimiter(
    options: LeakyBucketLimiterOptions & KeyedOptions & LeaseOptions,
  ): LeakyBucketLimiter {
    return this.limiterFor(leakyBucketLimitKind, options);
  }

  /**
   * A calendar quota: `limit` permits per day, week, month or year in `timeZone`, starting on
   * `anchor`: `consume`, `usage` and `credit` (docs/quotas.md).
   */
  quota(options: QuotaLimiterOptions & KeyedOptions): QuotaLimiter {
    return this.limiterFor(quotaLimitKind, options);
  }

  /** The same as {@link quota}, by the name every algorithm's method has. */
  quotaLimiter(options: QuotaLimiterOptions & KeyedOptions): QuotaLimiter {
    return this.quota(options);
  }

  /**
   * The cached limiter for these options, created (and its options validated) only on a
   * miss. Each kind has its own cache, in which an instance is found by its key and the raw
   * values of its options (`prefix` included): two configurations never share an instance.
   * A kind's variant (`approximate: true`) is a kind of its own.
   */
  private limiterFor<L extends object>(named: LimitKind<any, L>, options: KeyedOptions): L {
    const raw = options as unknown as Record<string, unknown>;
    let plain = this.plainKinds.get(named);
    if (plain === undefined) {
      plain =
        variantSwitches(named.name).length === 0
          ? this.limitersOf(limitKindFor(named.name, {}) ?? named, named)
          : null;
      this.plainKinds.set(named, plain);
    }
    const limiters = plain ?? this.limitersOf(limitKindFor(named.name, raw) ?? named, named);
    const { cache, optionNames, method } = limiters;
    // Checked on every call: a typo must not pass because an instance was cached already.
    refuseUnknownOptions(options, limiters.known, method);
    // Found by the key as given (its hash is usually cached already); the full key is only
    // built, and checked, on a miss, and the options validated only for a new configuration.
    const found = cache.find<L>(options.key, raw, optionNames);
    if (found !== undefined) return found;
    const { kind, plans } = limiters;
    const key = this.fullKey(options, method, kind);
    const params = plans.paramsFor(raw, () => kind.limiterParams(options, method));
    const limiter = kind.createLimiter(this.source, key, params) as L;
    cache.add(options.key, raw, optionNames, limiter);
    return limiter;
  }

  /** What the factory keeps for `kind`, a kind of `named`'s method. */
  private limitersOf(kind: LimitKind, named: LimitKind): KindLimiters {
    let limiters = this.caches.get(kind);
    if (!limiters) {
      limiters = kindLimiters(kind, named, this.cacheOptions);
      this.caches.set(kind, limiters);
    }
    return limiters;
  }

  private fullKey(options: KeyedOptions, where: string, kind: LimitKind): string {
    if (typeof options.key !== 'string' || options.key === '') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'key', options.key, 'a non-empty string'),
      );
    }
    const prefix = options.prefix ?? kind.defaultPrefix;
    if (typeof prefix !== 'string') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'prefix', prefix, 'a string'),
      );
    }
    // Escaped and bounded like a template's value, so both reach the same state.
    return this.keyPrefix + prefix + customKeyPart(options.key, kind.name);
  }
}
