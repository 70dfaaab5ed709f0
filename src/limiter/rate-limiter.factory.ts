import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  FixedWindowOptions,
  fixedWindowParams,
} from '../algorithms/fixed-window/fixed-window.model';
import {
  TokenBucketOptions,
  tokenBucketParams,
} from '../algorithms/token-bucket/token-bucket.model';
import {
  SlidingWindowOptions,
  slidingWindowParams,
} from '../algorithms/sliding-window/sliding-window.model';
import { ConcurrencyOptions, concurrencyParams } from '../algorithms/concurrency/concurrency.model';
import {
  LeakyBucketOptions,
  leakyBucketParams,
} from '../algorithms/leaky-bucket/leaky-bucket.model';
import { DEFAULT_PREFIXES, LimitKindName } from '../decorators/limit-definition';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { limiterMessages } from '../rate-limiter.messages';
import { customKeyPart } from '../keys/key-builder';
import { LimiterStore } from '../stores/limiter-store';
import { ConcurrencyLimiter } from './concurrency.limiter';
import { CountLimiter } from './count.limiter';
import { LeakyBucketLimiter } from './leaky-bucket.limiter';
import { LimiterCache, LimiterCacheOptions } from './limiter-cache';
import { SlidingWindowLimiter } from './sliding-window.limiter';
import { TokenBucketLimiter } from './token-bucket.limiter';

/** The part of the module options the factory uses. */
export interface RateLimiterFactoryOptions {
  keyPrefix?: string;
  cache?: LimiterCacheOptions;
}

/** Each limiter's options that make a configuration, in a fixed order for the cache. */
const TOKEN_BUCKET_OPTIONS = ['rate', 'burst', 'expire', 'initialPermits', 'prefix'];
const FIXED_WINDOW_OPTIONS = ['limit', 'period', 'prefix'];
const SLIDING_WINDOW_OPTIONS = ['limit', 'window', 'prefix'];
const CONCURRENCY_OPTIONS = ['max', 'lease', 'prefix'];
const LEAKY_BUCKET_OPTIONS = ['capacity', 'rate', 'prefix'];

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
 * const limiter = factory.rateLimiter({ key: `report:${id}`, rate: 1 / 30, burst: 30 });
 * if (!(await limiter.tryAcquire())) throw new RateLimitExceededException();
 *
 * @publicApi
 */
@Injectable()
export class RateLimiterFactory {
  private readonly caches: Record<LimitKindName, LimiterCache>;
  private readonly keyPrefix: string;

  constructor(
    readonly store: LimiterStore,
    @Optional() @Inject(RATE_LIMITER_OPTIONS) options?: RateLimiterFactoryOptions,
  ) {
    const cache = () => new LimiterCache(options?.cache);
    this.caches = {
      tokenBucket: cache(),
      fixedWindow: cache(),
      slidingWindow: cache(),
      concurrency: cache(),
      leakyBucket: cache(),
    };
    this.keyPrefix = options?.keyPrefix ?? '';
  }

  /** A token bucket: `rate` permits a second, `burst` seconds of them saved up. */
  rateLimiter(options: TokenBucketOptions & KeyedOptions): TokenBucketLimiter {
    return this.limiter('rateLimiter', 'tokenBucket', options, TOKEN_BUCKET_OPTIONS, (key) => {
      return new TokenBucketLimiter(this.store, key, tokenBucketParams(options, 'rateLimiter'));
    });
  }

  /** A fixed-window counter: `limit` requests per `period` seconds. */
  countLimiter(options: FixedWindowOptions & KeyedOptions): CountLimiter {
    return this.limiter('countLimiter', 'fixedWindow', options, FIXED_WINDOW_OPTIONS, (key) => {
      return new CountLimiter(this.store, key, fixedWindowParams(options, 'countLimiter'));
    });
  }

  /** An exact sliding-window log: at most `limit` requests within any `window` seconds. */
  slidingWindowLimiter(options: SlidingWindowOptions & KeyedOptions): SlidingWindowLimiter {
    return this.limiter(
      'slidingWindowLimiter',
      'slidingWindow',
      options,
      SLIDING_WINDOW_OPTIONS,
      (key) => {
        const params = slidingWindowParams(options, 'slidingWindowLimiter');
        return new SlidingWindowLimiter(this.store, key, params);
      },
    );
  }

  /**
   * A concurrency limit: at most `max` requests in flight, each slot leased for `lease`
   * seconds. The instance holds no slots itself, so one cached instance serves every caller.
   */
  concurrencyLimiter(options: ConcurrencyOptions & KeyedOptions): ConcurrencyLimiter {
    return this.limiter(
      'concurrencyLimiter',
      'concurrency',
      options,
      CONCURRENCY_OPTIONS,
      (key) => {
        return new ConcurrencyLimiter(
          this.store,
          key,
          concurrencyParams(options, 'concurrencyLimiter'),
        );
      },
    );
  }

  /** A leaky bucket (GCRA): `capacity` requests at once, then `rate` a second. */
  leakyBucketLimiter(options: LeakyBucketOptions & KeyedOptions): LeakyBucketLimiter {
    return this.limiter(
      'leakyBucketLimiter',
      'leakyBucket',
      options,
      LEAKY_BUCKET_OPTIONS,
      (key) => {
        return new LeakyBucketLimiter(
          this.store,
          key,
          leakyBucketParams(options, 'leakyBucketLimiter'),
        );
      },
    );
  }

  /**
   * The cached limiter for these options, created (and its options validated) only on a
   * miss. Each algorithm has its own cache, in which an instance is found by its key and
   * the raw values of its options (`prefix` included): two configurations never share an
   * instance.
   */
  private limiter<T extends object>(
    method: string,
    kind: LimitKindName,
    options: KeyedOptions,
    optionNames: readonly string[],
    create: (key: string) => T,
  ): T {
    // Found by the key as given (its hash is usually cached already); the full key is only
    // built, and checked, on a miss.
    return this.caches[kind].getOrCreate(
      options.key,
      options as unknown as Record<string, unknown>,
      optionNames,
      () => create(this.fullKey(options, method, kind)),
    );
  }

  private fullKey(options: KeyedOptions, where: string, kind: LimitKindName): string {
    if (typeof options.key !== 'string' || options.key === '') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'key', options.key, 'a non-empty string'),
      );
    }
    const prefix = options.prefix ?? DEFAULT_PREFIXES[kind];
    if (typeof prefix !== 'string') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'prefix', prefix, 'a string'),
      );
    }
    // Escaped and bounded like a template's value, so both reach the same state (DESIGN §4).
    return this.keyPrefix + prefix + customKeyPart(options.key);
  }
}
