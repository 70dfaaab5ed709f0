import type { DecisionGroup } from '../contracts/decision-group';
import type { LimiterAlgorithm } from './limiter-algorithm';

/**
 * One decision asked of a store: run `algorithm` with the limit's `params` on `key` for
 * `request`, atomically. One object rather than a row of positional arguments, so a call
 * names what it passes and a store can take a new, optional field without breaking callers.
 *
 * @publicApi
 */
export interface DecisionCall<P, R, S> {
  algorithm: LimiterAlgorithm<P, R, S>;
  key: string;
  /** The limit's parameters, fixed per limit. */
  params: P;
  /**
   * Set when `params` is made for each request (a limit whose options are functions of the
   * request, such as a limit from the customer's plan): an object that stays the same across
   * requests, plans, handlers and recompiles (one per algorithm). A store that keeps keys
   * apart by limit (memory) finds them by it, and one that caches what it makes of a params
   * object keeps nothing for these. Absent: the params object stands for the limit.
   */
  partition?: object;
  /** The request's own arguments (its permits, its id...). */
  request: R;
  /**
   * A `performance.now()` time: when the caller stops waiting. A store that can tell should
   * then leave its state unchanged rather than decide for nobody.
   */
  deadlineMs?: number;
  /** The other limits of the same request, decided all or nothing where the store can. */
  group?: DecisionGroup;
  /**
   * For a store that sends decisions on later (batched): called with the `performance.now()`
   * time the decision left for the backend. The caller then waits from that moment (the time
   * it spent queued in a busy app is not the backend's), and the store moves `deadlineMs` on
   * by as much. It returns false when the caller has stopped waiting already: the store then
   * sends nothing; or the `performance.now()` time the caller now stops waiting, which a
   * store that tells its backend a deadline sends as it is (the store's own arithmetic from
   * `deadlineMs` would count again what the app lost before the decision reached it).
   */
  onSent?: (sentAtMs: number) => boolean | number | void;
}
