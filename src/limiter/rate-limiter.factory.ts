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
import { LimiterConfigError } from '../errors/limiter-config.error';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { limiterMessages } from '../rate-limiter.messages';
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

/** A limiter's key: used as given, after the module's `keyPrefix`. */
export interface KeyedOptions {
  key: string;
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
  private readonly cache: LimiterCache;
  private readonly keyPrefix: string;

  constructor(
    readonly store: LimiterStore,
    @Optional() @Inject(RATE_LIMITER_OPTIONS) options?: RateLimiterFactoryOptions,
  ) {
    this.cache = new LimiterCache(options?.cache);
    this.keyPrefix = options?.keyPrefix ?? '';
  }

  /** A token bucket: `rate` permits a second, `burst` seconds of them saved up. */
  rateLimiter(options: TokenBucketOptions & KeyedOptions): TokenBucketLimiter {
    const key = this.fullKey(options, 'rateLimiter');
    const params = tokenBucketParams(options, 'rateLimiter');
    return this.cache.getOrCreate(
      'tokenBucket',
      params,
      key,
      () => new TokenBucketLimiter(this.store, key, params),
    );
  }

  /** A fixed-window counter: `limit` requests per `period` seconds. */
  countLimiter(options: FixedWindowOptions & KeyedOptions): CountLimiter {
    const key = this.fullKey(options, 'countLimiter');
    const params = fixedWindowParams(options, 'countLimiter');
    return this.cache.getOrCreate(
      'fixedWindow',
      params,
      key,
      () => new CountLimiter(this.store, key, params),
    );
  }

  /** An exact sliding-window log: at most `limit` requests within any `window` seconds. */
  slidingWindowLimiter(options: SlidingWindowOptions & KeyedOptions): SlidingWindowLimiter {
    const key = this.fullKey(options, 'slidingWindowLimiter');
    const params = slidingWindowParams(options, 'slidingWindowLimiter');
    return this.cache.getOrCreate(
      'slidingWindow',
      params,
      key,
      () => new SlidingWindowLimiter(this.store, key, params),
    );
  }

  /**
   * A concurrency limit: at most `max` requests in flight, each slot leased for `lease`
   * seconds. The instance holds no slots itself, so one cached instance serves every caller.
   */
  concurrencyLimiter(options: ConcurrencyOptions & KeyedOptions): ConcurrencyLimiter {
    const key = this.fullKey(options, 'concurrencyLimiter');
    const params = concurrencyParams(options, 'concurrencyLimiter');
    return this.cache.getOrCreate(
      'concurrency',
      params,
      key,
      () => new ConcurrencyLimiter(this.store, key, params),
    );
  }

  /** A leaky bucket (GCRA): `capacity` requests at once, then `rate` a second. */
  leakyBucketLimiter(options: LeakyBucketOptions & KeyedOptions): LeakyBucketLimiter {
    const key = this.fullKey(options, 'leakyBucketLimiter');
    const params = leakyBucketParams(options, 'leakyBucketLimiter');
    return this.cache.getOrCreate(
      'leakyBucket',
      params,
      key,
      () => new LeakyBucketLimiter(this.store, key, params),
    );
  }

  private fullKey(options: KeyedOptions, where: string): string {
    if (typeof options.key !== 'string' || options.key === '') {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, 'key', options.key, 'a non-empty string'),
      );
    }
    return this.keyPrefix + options.key;
  }
}
