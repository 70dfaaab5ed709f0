import { Decision } from '../algorithms/decision';
import { leakyBucket } from '../algorithms/leaky-bucket/leaky-bucket.algorithm';
import { LeakyBucketParams } from '../algorithms/leaky-bucket/leaky-bucket.model';
import { LimiterStore } from '../stores/limiter-store';

/**
 * A leaky bucket (GCRA, redis-cell's `CL.THROTTLE`) on one key: `capacity` requests may
 * arrive at once, then `rate` a second. Shared through the store by every process that
 * uses the same key and options. The math: leaky-bucket.model.ts.
 *
 * @example
 * const limiter = factory.leakyBucketLimiter({ key: `api:${userId}`, capacity: 10, rate: 2 });
 * const { allowed, remaining, retryAfterMs, resetMs } = await limiter.decide();
 *
 * @publicApi
 */
export class LeakyBucketLimiter {
  constructor(
    private readonly store: LimiterStore,
    readonly key: string,
    readonly params: LeakyBucketParams,
  ) {}

  /** Adds one request to the bucket if it fits, and returns the full decision (CL.THROTTLE's reply). */
  decide(): Promise<Decision> {
    return this.store.evaluate(leakyBucket, this.key, this.params, undefined);
  }

  /** Adds one request; resolves true when it fits, false (changing nothing) when the bucket is full. */
  async tryAcquire(): Promise<boolean> {
    return (await this.decide()).allowed;
  }
}
