import type { LimiterAlgorithm } from './limiter-algorithm';

/**
 * An algorithm as the package's own are made (define-algorithm.ts, state-ops/): the public
 * {@link LimiterAlgorithm} and what the stores read of an operation or a wrapper beside it.
 * Not exported from the package: an algorithm of the app's own is a LimiterAlgorithm and
 * implements only that, so a store reads each flag below as absent for it (an acquire that
 * decides, written in a Lua of its own).
 */
export interface EngineAlgorithm<P, R, S> extends LimiterAlgorithm<P, R, S> {
  /**
   * True for an operation that can end a denial before its time (reset, refund, block):
   * the store forgets what it remembered of the key's denials.
   */
  readonly forgetsDenials?: boolean;
  /**
   * The algorithm whose keys this one acts on, when it is an operation of another (peek,
   * reset, refund, block; a wrapper such as blocks): the memory store keeps a limit's keys
   * together, found by that algorithm and its parameters.
   */
  readonly stateOf?: EngineAlgorithm<any, any, any>;
  /**
   * False for a request that gives back rather than decides (a concurrency release, a
   * token-bucket refund), so it is not reported as an `allowed` event; absent means every
   * request decides.
   */
  isDecision?(request: R): boolean;
  /** True for a look that changes nothing (peek): it neither takes nor gives back. */
  readonly readsOnly?: boolean;
}

/** The algorithm whose keys `algorithm` acts on: its own, unless it is an operation of another. */
export function stateOwner(
  algorithm: EngineAlgorithm<any, any, any>,
): EngineAlgorithm<any, any, any> {
  return algorithm.stateOf ?? algorithm;
}

/** Whether a request of `algorithm` gives permits back: a refund or a release. */
export function givesBack<P, R, S>(algorithm: EngineAlgorithm<P, R, S>, request: R): boolean {
  return algorithm.isDecision?.(request) === false;
}

/** Whether it takes permits: an acquire (not a peek, a reset, a block or a give-back). */
export function takesPermits<P, R, S>(algorithm: EngineAlgorithm<P, R, S>, request: R): boolean {
  return !algorithm.readsOnly && !algorithm.forgetsDenials && !givesBack(algorithm, request);
}
