import { Decision } from '../decision';
import { permitsRequest } from '../permits';
import { fixedWindow } from './fixed-window.algorithm';
import { FixedWindowParams } from './fixed-window.model';
import { KeyStateAccess, KeyStateLimiter } from '../state-ops/key-state-limiter';
import { fixedWindowOps } from './fixed-window.ops';

/**
 * A fixed-window counter on one key: `limit` permits per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter extends KeyStateLimiter<FixedWindowParams> {
  protected stateAccess(): KeyStateAccess<FixedWindowParams> {
    return { ops: fixedWindowOps, peekRequest: undefined };
  }

  /**
   * Counts `permits` (an integer >= 0, default 1) if the window has room for them, and
   * returns the full decision. A denial counts nothing; `0` peeks; more than the limit is
   * denied with `retryAfterMs` -1 (it can never pass).
   */
  async decide(permits = 1): Promise<Decision> {
    const request = permitsRequest(permits, 'countLimiter');
    return this.store.evaluate(fixedWindow, this.key, this.params, request);
  }

  /** Counts `permits` (default 1); resolves true when the window had room for them. */
  async tryAcquire(permits = 1): Promise<boolean> {
    return (await this.decide(permits)).allowed;
  }
}
