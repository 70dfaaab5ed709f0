import { Decision } from '../decision';
import { permitsRequest } from '../permits';
import { SlidingWindowLimiter } from '../sliding-window/sliding-window.limiter';
import { approximateSlidingWindow } from './approximate-sliding-window.algorithm';
import { ApproximateSlidingWindowRequest } from './approximate-sliding-window.model';
import { approximateSlidingWindowOps } from './approximate-sliding-window.ops';
import { KeyStateAccess } from '../state-ops/key-state-limiter';
import { SlidingWindowParams } from '../sliding-window/sliding-window.model';

const ONE_PERMIT: ApproximateSlidingWindowRequest = Object.freeze({ permits: 1 });

/**
 * `factory.slidingWindowLimiter({ ..., approximate: true })`: the sliding window at a
 * counter's cost, one short string per key whatever the limit. The math:
 * approximate-sliding-window.model.ts.
 *
 * @publicApi
 */
export class ApproximateSlidingWindowLimiter extends SlidingWindowLimiter {
  protected override stateAccess(): KeyStateAccess<SlidingWindowParams> {
    return { ops: approximateSlidingWindowOps, peekRequest: ONE_PERMIT };
  }

  /**
   * Counts `permits` (an integer >= 0, default 1) if the estimate leaves room for them, and
   * returns the full decision. `0` peeks; more than the limit can never pass (`retryAfterMs` -1).
   */
  override async decide(permits = 1): Promise<Decision> {
    const request = permitsRequest(permits, 'slidingWindowLimiter');
    return this.store.evaluate(approximateSlidingWindow, this.key, this.params, request);
  }
}
