import { Decision } from '../decision';
import { SlidingWindowLimiter } from '../sliding-window/sliding-window.limiter';
import { approximateSlidingWindow } from './approximate-sliding-window.algorithm';
import { ApproximateSlidingWindowRequest } from './approximate-sliding-window.model';

const ONE_PERMIT: ApproximateSlidingWindowRequest = Object.freeze({ permits: 1 });

/**
 * `factory.slidingWindowLimiter({ ..., approximate: true })`: the sliding window at a
 * counter's cost, one short string per key whatever the limit. The math:
 * approximate-sliding-window.model.ts.
 *
 * @publicApi
 */
export class ApproximateSlidingWindowLimiter extends SlidingWindowLimiter {
  /** Counts one request if the estimate leaves room for it, and returns the full decision. */
  override decide(): Promise<Decision> {
    return this.store.evaluate(approximateSlidingWindow, this.key, this.params, ONE_PERMIT);
  }
}
