import { RawReply } from '../../contracts/decision';
import { EngineAlgorithm } from '../engine-algorithm';
import { LimiterAlgorithm, MemoryStep } from '../limiter-algorithm';
import { hiddenBlock, withBlock } from './block-twin';
import { Blockable, BlockParams, StateType } from './state-ops.model';

export { ttlWithBlock } from './block-twin';

/** The reply of a request that finds its key blocked until `until`. */
function blockedReply(until: number, now: number): RawReply {
  return [0, 0, until - now, until - now, 0];
}

/**
 * The algorithm with blocks (state-ops.model.ts): a blocked key denies at once; a block
 * past its end is dropped; a denial with `blockMicros` > 0 blocks the key for that long, or
 * with `blockStepsMicros` for the step after the last block's, unless the request could
 * never pass (a cost above the limit says nothing of the key's rate). Its argv, the block
 * then the algorithm's own, is made where the parameters are (define-algorithm.ts).
 */
export function blockable<P, R, S>(
  algorithm: EngineAlgorithm<P, R, S>,
  stateType: StateType,
): Omit<EngineAlgorithm<P & BlockParams, R, Blockable<S>>, 'paramsArgv'> {
  // Not the algorithm's own argv: the blocked acquire's starts with the block.
  const { paramsArgv: _ownArgv, ...rest } = algorithm;
  return {
    ...rest,
    stateOf: algorithm.stateOf ?? algorithm,
    // blockable.lua's blockable_acquire around the algorithm's own function, in the engine
    // library (its table's entry: library-entries.ts).
    lua: undefined,
    step: (state, now, params, request, expiresAt) =>
      blockableStep(algorithm, stateType, state, now, params, request, expiresAt),
  };
}

/** The memory twin of blockable.lua's `blockable_acquire`. */
function blockableStep<P, R, S>(
  algorithm: LimiterAlgorithm<P, R, S>,
  stateType: StateType,
  found: Blockable<S> | undefined,
  now: number,
  params: P & BlockParams,
  request: R,
  foundExpiresAt: number | undefined,
): MemoryStep<Blockable<S>> {
  const steps = params.blockStepsMicros;
  const lastStep = steps?.[steps.length - 1] ?? 0;
  const { state, expiresAt, written } = currentBlock(found, stateType, now, params, foundExpiresAt);
  const until = state?.blockedUntilMicros;
  if (until !== undefined && now < until) {
    const ttlMs = written ? (expiresAt! - now) / 1000 : null;
    return { state, ttlMs, reply: blockedReply(until, now) };
  }
  let level = state?.level;
  let innerState = state?.inner;
  let innerExpiresAt = expiresAt;
  if (until !== undefined) {
    ({ inner: innerState, expiresAt: innerExpiresAt } = hiddenBlock(
      state!,
      stateType,
      now,
      expiresAt,
    ));
    // A block set by hand (level 0) started no escalation.
    if (!steps || level === 0 || (level !== undefined && now >= until + lastStep))
      level = undefined;
  }
  const inner = algorithm.step(innerState, now, params, request, innerExpiresAt);
  // The Lua drops a stale block by rewriting the value with its TTL kept.
  const changed = inner.ttlMs !== null || until !== undefined || written;
  let afterExpiresAt = inner.ttlMs === null ? innerExpiresAt : now + inner.ttlMs * 1000;
  if (inner.state === undefined) afterExpiresAt = undefined;
  let block = params.blockMicros ?? 0;
  if (inner.reply[0] === 0 && block > 0 && inner.reply[3] >= 0) {
    let keepUntil: number | undefined;
    if (steps) {
      level = Math.min((level ?? 0) + 1, steps.length);
      block = steps[level - 1];
      keepUntil = now + block + lastStep;
    }
    const [, remaining, reset, retryAfter] = inner.reply;
    return {
      ...withBlock(inner.state, stateType, now, now + block, afterExpiresAt, level, keepUntil),
      reply: [0, remaining, Math.max(reset, block), Math.max(retryAfter, block), 0],
    };
  }
  if (level !== undefined) {
    const keepUntil = until! + lastStep;
    return carried(inner, {
      ...withBlock(inner.state, stateType, now, until!, afterExpiresAt, level, keepUntil),
      reply: inner.reply,
    });
  }
  if (!changed) return carried(inner, { state, ttlMs: null, reply: inner.reply });
  if (inner.state === undefined) {
    return carried<Blockable<S>>(inner, { state: undefined, ttlMs: null, reply: inner.reply });
  }
  return carried(inner, {
    state: { inner: inner.state },
    ttlMs: (afterExpiresAt! - now) / 1000,
    reply: inner.reply,
  });
}

/**
 * The twin of blockable.lua's `current_block`: the key as the acquire finds it, a block a
 * denial wrote under a longer block than `params` give (the block, or the step of its level)
 * cut to theirs, or dropped when they give none; a block set by hand (level 0) kept.
 * `written` when the key was rewritten so.
 */
function currentBlock<S>(
  found: Blockable<S> | undefined,
  stateType: StateType,
  now: number,
  params: BlockParams,
  foundExpiresAt: number | undefined,
): { state: Blockable<S> | undefined; expiresAt: number | undefined; written: boolean } {
  const until = found?.blockedUntilMicros;
  const level = found?.level;
  const steps = params.blockStepsMicros;
  const block = steps ? steps[Math.min(level ?? 1, steps.length) - 1] : (params.blockMicros ?? 0);
  if (until === undefined || level === 0 || until <= now + block) {
    return { state: found, expiresAt: foundExpiresAt, written: false };
  }
  const hidden = hiddenBlock(found!, stateType, now, foundExpiresAt);
  if (block === 0) {
    const state = hidden.inner === undefined ? undefined : { inner: hidden.inner };
    return { state, expiresAt: state && hidden.expiresAt, written: true };
  }
  const cut = now + block;
  const keptLevel = steps ? level : undefined;
  const { state, ttlMs } = withBlock(
    hidden.inner,
    stateType,
    now,
    cut,
    hidden.expiresAt,
    keptLevel,
    steps ? cut + steps[steps.length - 1] : undefined,
  );
  return { state, expiresAt: now + ttlMs * 1000, written: true };
}

/** The blockable step of an allowed `inner` step, with what undoes it beside the state. */
function carried<S>(inner: MemoryStep<unknown>, step: MemoryStep<S>): MemoryStep<S> {
  if (inner.undo) step.undo = inner.undo;
  return step;
}
