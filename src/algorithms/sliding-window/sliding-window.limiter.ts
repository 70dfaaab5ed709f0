import { randomUUID } from 'node:crypto';
import { Decision } from '../decision';
import { slidingWindow } from './sliding-window.algorithm';
import { SlidingWindowParams } from './sliding-window.model';
import { DecisionSource } from '../limit-kind';

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
export class SlidingWindowLimiter {
  constructor(
    protected readonly store: DecisionSource,
    readonly key: string,
    readonly params: SlidingWindowParams,
  ) {}

  /** Logs one request if it fits in the window, and returns the full decision. */
  decide(): Promise<Decision> {
    return this.store.evaluate(slidingWindow, this.key, this.params, { id: randomUUID() });
  }

  /** Logs one request; resolves true when it fits in the window, false (logging nothing) when not. */
  async tryAcquire(): Promise<boolean> {
    return (await this.decide()).allowed;
  }
}
