import { randomUUID } from 'node:crypto';
import { Decision } from '../decision';
import { checkPermits } from '../permits';
import { slidingWindow } from './sliding-window.algorithm';
import { SlidingWindowParams } from './sliding-window.model';
import { KeyStateAccess, KeyStateLimiter } from '../state-ops/key-state-limiter';
import { slidingWindowOps } from './sliding-window.ops';

/** A peek's member never stays: the key is restored after it. */
const PEEK_REQUEST = Object.freeze({ id: 'peek' });

/**
 * An exact sliding-window log on one key: at most `limit` requests within any `window`
 * seconds, shared through the store by every process that uses the same key and options.
 * The math: sliding-window.model.ts.
 *
 * @example
 * ```ts
 * const limiter = factory.slidingWindowLimiter({ key: `login:${ip}`, limit: 5, window: 60 });
 * if (!(await limiter.tryAcquire())) throw new RateLimitExceededException();
 * ```
 *
 * @publicApi
 */
export class SlidingWindowLimiter extends KeyStateLimiter<SlidingWindowParams> {
  protected stateAccess(): KeyStateAccess<SlidingWindowParams> {
    return { ops: slidingWindowOps, peekRequest: PEEK_REQUEST };
  }

  /**
   * Logs a request of `permits` (an integer >= 0, default 1) if it fits in the window, and
   * returns the full decision. `0` peeks; more than the limit can never pass
   * (`retryAfterMs` -1); a denial logs nothing.
   */
  async decide(permits = 1): Promise<Decision> {
    const request = { id: randomUUID(), permits: checkPermits(permits, 'slidingWindowLimiter') };
    return this.store.evaluate(slidingWindow, this.key, this.params, request);
  }

  /** Logs a request of `permits` (default 1); resolves true when it fits, false (logging nothing) when not. */
  async tryAcquire(permits = 1): Promise<boolean> {
    return (await this.decide(permits)).allowed;
  }
}
