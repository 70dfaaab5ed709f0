import { Decision } from '../contracts/decision';
import type { DecisionCall } from './decision-call';

/**
 * What a limiter needs of a store: one atomic decision. `LimiterStore` satisfies it; the
 * algorithms name only this, so they never import the stores that run them.
 */
export interface DecisionSource {
  evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision>;
  /** Waits on the store's clock (a token-bucket slot): real timers, or a test's manual clock. */
  sleep(milliseconds: number): Promise<void>;
  /** The store's clock, epoch ms (a store's currentTimeMs): where a quota looks for its cycle. */
  currentTimeMs?(): number;
  /** Permits of `key` this server holds on lease, not handed out yet (a store's leasedOn). */
  leasedOn?(key: string): number;
}
