import { Decision } from '../decision';
import { fixedWindow } from './fixed-window.algorithm';
import { FixedWindowParams } from './fixed-window.model';
import { DecisionSource } from '../limit-kind';

/**
 * A fixed-window counter on one key: `limit` requests per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter {
  constructor(
    private readonly store: DecisionSource,
    readonly key: string,
    readonly params: FixedWindowParams,
  ) {}

  /** Counts one request and returns the full decision. */
  decide(): Promise<Decision> {
    return this.store.evaluate(fixedWindow, this.key, this.params, undefined);
  }

  /** Counts one request; resolves true while the window's count is within the limit. */
  async tryAcquire(): Promise<boolean> {
    return (await this.decide()).allowed;
  }
}
