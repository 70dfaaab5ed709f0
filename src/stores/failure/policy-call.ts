import { Decision } from '../../contracts/decision';
import type { DecisionCall } from '../../algorithms/decision-call';
import { StoreUnavailableError } from '../../errors/store-unavailable.error';
import type { StoreErrorPolicy } from '../../contracts/store-error-policy';

/**
 * Told of every decision the store could not make, for the `onDecision` hook; `name` is
 * the limit's name (the guard's limits) or the algorithm's (the factory's).
 */
export type StoreErrorListener = (
  error: StoreUnavailableError,
  key: string,
  label: string,
  name?: string,
) => void;

/**
 * A decision asked of the failure policy: the store's call without what this layer sets
 * itself (the deadline, from `storeTimeout`; the moment it was sent).
 */
export interface PolicyCall<P, R, S> extends Omit<DecisionCall<P, R, S>, 'deadlineMs' | 'onSent'> {
  /** Names the limit in error reports. */
  label?: string;
  /**
   * Receives a decision that arrived after `storeTimeout`, so a caller can give back what it
   * took (a concurrency slot) instead of holding it until its lease ends.
   */
  onLateAnswer?: (decision: Decision) => void;
  /** The limit's name, in store-error events (metrics count by it). */
  name?: string;
  /** The limit's own `onStoreError`, where it has one: it wins over the store's policy. */
  policy?: StoreErrorPolicy;
}

/** The store's call for a policy call: its decision, with the deadline and the send hook. */
export function storeCallOf<P, R, S>(
  call: PolicyCall<P, R, S>,
  deadlineMs: number,
  onSent: (sentAtMs: number) => number | false,
): DecisionCall<P, R, S> {
  const { algorithm, key, params, request, group, partition } = call;
  return { algorithm, key, params, request, group, partition, deadlineMs, onSent };
}
