import { RawReply } from '../../contracts/decision';
import { EngineAlgorithm } from '../engine-algorithm';
import { MemoryStep } from '../limiter-algorithm';
import { hiddenBlock, HiddenState, hideBlock, pttlOf, withBlock } from './block-twin';
import { Blockable, RefundRequest, refundArgv, StateType } from './state-ops.model';

type Algorithm<P, R, S> = EngineAlgorithm<P, R, S>;

/**
 * The operations on one algorithm's key besides acquiring (state-ops.model.ts), for every
 * kind: the guard, the factory's limiters, the admin page and the engine script use them.
 * `Kept` is the state its key holds: the algorithm's own with a block beside it (blockable.ts),
 * or the algorithm's own where it keeps its block itself (concurrency).
 */
export interface StateOps<P, R, S, Kept = Blockable<S>> {
  /** The acquire's decision, nothing changed; its waitMicros is the block left. */
  peek: Algorithm<P, R, Kept>;
  reset: Algorithm<P, void, Kept>;
  /** Blocks the key for the request's µs from now. */
  block: Algorithm<P, number, Kept>;
  /** Absent for an algorithm without refunds (concurrency releases instead). */
  refund?: Algorithm<P, RefundRequest, Kept>;
  /**
   * Takes permits whatever the limit says, into debt if need be (a settled cost above what
   * was reserved); absent for concurrency, whose slots are given back whole.
   */
  charge?: Algorithm<P, RefundRequest, Kept>;
}

const DONE = [1, 0, 0, 0, 0] as const;

/**
 * Builds the operations of a blockable acquire (see blockable.ts) of `stateType`, with
 * `refund` and `charge` the algorithm's own (they run on the state with any block hidden).
 */
export function stateOps<P, R, S>(
  acquire: Algorithm<P, R, Blockable<S>>,
  stateType: StateType,
  refund?: Algorithm<P, RefundRequest, S>,
  charge?: Algorithm<P, RefundRequest, S>,
): StateOps<P, R, S> {
  const name = acquire.commandName;
  return {
    peek: peekOf(acquire, stateType, hideBlock(stateType)),
    reset: resetOf(acquire),
    block: {
      commandName: `${name}Block`,
      forgetsDenials: true,
      stateOf: acquire.stateOf ?? acquire,
      // One function blocks a key of any algorithm of the state type (state-ops.lua's block_of).
      paramsArgv: () => [],
      requestArgv: (micros) => [String(micros)],
      // A block set by hand starts no escalation: the level of escalating blocks is dropped,
      // and level 0 marks it as set by hand, which no block option cuts (state-ops.lua).
      step: (state, now, _params, micros, expiresAt) => {
        const hidden =
          state?.blockedUntilMicros === undefined
            ? { inner: state?.inner, expiresAt }
            : hiddenBlock(state, stateType, now, expiresAt);
        const { inner, expiresAt: innerExpiresAt } = hidden;
        return {
          ...withBlock(inner, stateType, now, now + micros, innerExpiresAt, 0),
          reply: DONE,
        };
      },
      limit: acquire.limit,
    },
    refund: refund && {
      ...adjustmentOf(refund, stateType),
      forgetsDenials: true,
      stateOf: acquire.stateOf ?? acquire,
    },
    // A charge only takes: what a remembered denial says stays true.
    charge: charge && { ...adjustmentOf(charge, stateType), stateOf: acquire.stateOf ?? acquire },
  };
}

/** Forgets the key: DEL, or the memory entry dropped. */
export function resetOf<P, S>(acquire: Algorithm<P, any, S>): Algorithm<P, void, S> {
  return {
    commandName: `${acquire.commandName}Reset`,
    forgetsDenials: true,
    stateOf: acquire.stateOf ?? acquire,
    // One function resets a key of any algorithm (state-ops.lua's reset_state).
    paramsArgv: () => [],
    step: () => ({ state: undefined, ttlMs: null, reply: DONE }),
    limit: acquire.limit,
  };
}

/**
 * The acquire's decision on a request of 0 permits (the caller's), on a snapshot of the key
 * restored after (state-ops.lua's `peek_of`): what a request could take and when the state
 * is fully recovered, as it stands. Its argv asks for no block on a denial, and a block found
 * is hidden from the algorithm (`hide`: how its state keeps one; none for an acquire that
 * reports its block itself); its waitMicros is the block left.
 */
export function peekOf<P, R, S>(
  acquire: Algorithm<P, R, S>,
  stateType: StateType,
  hide?: (state: S, now: number, expiresAt: number | undefined) => HiddenState<S>,
): Algorithm<P, R, S> {
  return {
    ...acquire,
    commandName: `${acquire.commandName}Peek`,
    stateOf: acquire.stateOf ?? acquire,
    // state-ops.lua's peek_of: the prelude's snapshot and restore, value and TTL exactly
    // as before.
    lua: undefined,
    paramsArgv: (params) => acquire.paramsArgv(withoutBlocks(params)),
    denialScope: undefined,
    readsOnly: true,
    step: (state, now, params, request, expiresAt) => {
      const until = (state as Partial<Blockable<unknown>> | undefined)?.blockedUntilMicros ?? now;
      const left = Math.max(0, until - now);
      const seen = state !== undefined && hide ? hide(state, now, expiresAt) : { state, expiresAt };
      const [allowed, remaining, reset, retryAfter] = acquire.step(
        seen.state,
        now,
        withoutBlocks(params),
        request,
        seen.expiresAt,
      ).reply;
      const reply: RawReply =
        left > 0
          ? [0, 0, Math.max(reset, left), Math.max(retryAfter, left), left]
          : [allowed, remaining, reset, retryAfter, 0];
      return { state, ttlMs: null, reply };
    },
  };
}

/** A limit's parameters with no block after a denial: a peek blocks nothing. */
function withoutBlocks<P>(params: P): P {
  return { ...params, blockMicros: 0, blockStepsMicros: undefined };
}

/**
 * A refund or a charge on a blockable key: `adjust` runs on the algorithm's state with any
 * block hidden, and the block is put back after. It is never refused and reports nothing
 * but done. Its argv is the refund's unless `adjust` reads its own.
 */
function adjustmentOf<P, S>(
  adjust: Algorithm<P, RefundRequest, S>,
  stateType: StateType,
): Algorithm<P, RefundRequest, Blockable<S>> {
  return {
    ...adjust,
    denialScope: undefined,
    isDecision: () => false,
    // state-ops.lua's adjust_of around the refund's or the charge's own function.
    lua: undefined,
    requestArgv: adjust.requestArgv ?? refundArgv,
    step: (state, now, params, request, expiresAt) =>
      adjustmentStep(adjust, stateType, state, now, params, request, expiresAt),
  };
}

function adjustmentStep<P, S>(
  refund: Algorithm<P, RefundRequest, S>,
  stateType: StateType,
  state: Blockable<S> | undefined,
  now: number,
  params: P,
  request: RefundRequest,
  expiresAt: number | undefined,
): MemoryStep<Blockable<S>> {
  const until = state?.blockedUntilMicros;
  const level = state?.level;
  let keepUntil: number | undefined;
  let hidden = { inner: state?.inner, expiresAt };
  if (until !== undefined) {
    if (level !== undefined) keepUntil = now + Math.max(0, pttlOf(expiresAt, now)) * 1000;
    hidden = hiddenBlock(state!, stateType, now, expiresAt);
  }
  const inner = refund.step(hidden.inner, now, params, request, hidden.expiresAt);
  let innerExpiresAt = inner.ttlMs === null ? hidden.expiresAt : now + inner.ttlMs * 1000;
  if (inner.state === undefined) innerExpiresAt = undefined;
  if (until !== undefined && (until > now || level !== undefined)) {
    const written = withBlock(inner.state, stateType, now, until, innerExpiresAt, level, keepUntil);
    return { ...written, reply: DONE };
  }
  if (inner.state === undefined) return { state: undefined, ttlMs: null, reply: DONE };
  if (inner.ttlMs === null && until === undefined) return { state, ttlMs: null, reply: DONE };
  return { state: { inner: inner.state }, ttlMs: (innerExpiresAt! - now) / 1000, reply: DONE };
}
