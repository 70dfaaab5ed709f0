import { Decision } from '../decision';
import { permitsRequest } from '../permits';
import { leakyBucket } from './leaky-bucket.algorithm';
import { LeakyBucketParams } from './leaky-bucket.model';
import { KeyStateAccess, KeyStateLimiter } from '../state-ops/key-state-limiter';
import { leakyBucketOps } from './leaky-bucket.ops';

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
export class LeakyBucketLimiter extends KeyStateLimiter<LeakyBucketParams> {
  protected stateAccess(): KeyStateAccess<LeakyBucketParams> {
    return { ops: leakyBucketOps, peekRequest: undefined };
  }

  /**
   * Adds `permits` (CL.THROTTLE's quantity: an integer >= 0, default 1) to the bucket if they
   * fit, and returns the full decision. `0` peeks; more than the capacity is denied with
   * `retryAfterMs` -1 (it can never pass); a denial changes nothing.
   */
  async decide(permits = 1): Promise<Decision> {
    const request = permitsRequest(permits, 'leakyBucketLimiter');
    return this.store.evaluate(leakyBucket, this.key, this.params, request);
  }

  /** Adds `permits` (default 1); resolves true when they fit, false (changing nothing) when not. */
  async tryAcquire(permits = 1): Promise<boolean> {
    return (await this.decide(permits)).allowed;
  }
}
