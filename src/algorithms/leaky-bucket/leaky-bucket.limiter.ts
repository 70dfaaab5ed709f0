import { Decision } from '../decision';
import { leakyBucket } from './leaky-bucket.algorithm';
import { LeakyBucketParams } from './leaky-bucket.model';
import { DecisionSource } from '../limit-kind';

/**
 * A leaky bucket (GCRA, redis-cell's `CL.THROTTLE`) on one key: `capacity` requests may
 * arrive at once, then `rate` a second. Shared through the store by every process that
 * uses the same key and options. The math: leaky-bucket.model.ts.
 *
 * @example
 * ```ts
 * const limiter = factory.leakyBucketLimiter({ key: `api:${userId}`, capacity: 10, rate: 2 });
 * const { allowed, remaining, retryAfterMs, resetMs } = await limiter.decide();
 * ```
 *
 * @publicApi
 */
export class LeakyBucketLimiter {
  constructor(
    private readonly store: DecisionSource,
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
