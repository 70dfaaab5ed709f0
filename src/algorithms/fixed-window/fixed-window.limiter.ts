import { Decision } from '../decision';
import { fixedWindow } from './fixed-window.algorithm';
import { FixedWindowParams } from './fixed-window.model';
import { KeyStateAccess, KeyStateLimiter } from '../state-ops/key-state-limiter';
import { fixedWindowOps } from './fixed-window.ops';

/**
 * A fixed-window counter on one key: `limit` requests per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter extends KeyStateLimiter<FixedWindowParams> {
  protected stateAccess(): KeyStateAccess<FixedWindowParams> {
    return { ops: fixedWindowOps, peekRequest: undefined };
  }

  /** Counts one request and returns the full decision. */
  decide(): Promise<Decision> {
    return this.store.evaluate(fixedWindow, this.key, this.params, undefined);
  }

  /** Counts one request; resolves true while the window's count is within the limit. */
  async tryAcquire(): Promise<boolean> {
    return (await this.decide()).allowed;
  }
}
