import { Decision } from '../algorithms/decision';
import { fixedWindow } from '../algorithms/fixed-window/fixed-window.algorithm';
import { FixedWindowParams } from '../algorithms/fixed-window/fixed-window.model';
import { LimiterStore } from '../stores/limiter-store';

/**
 * A fixed-window counter on one key: `limit` requests per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter {
  constructor(
    private readonly store: LimiterStore,
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
