import { RawReply } from '../decision';
import { LimiterAlgorithm, MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { blockLua, localFunction, SHIFT_ARGV } from './block-lua';
import { Blockable, BlockParams, StateType } from './state-ops.model';

/** The reply of a request that finds its key blocked until `until`. */
export function blockedReply(until: number, now: number): RawReply {
  return [0, 0, until - now, until - now, 0];
}

/** Milliseconds of TTL that keep a state until `expiresAt` and a block until `until`, as the Lua's PX. */
export function ttlWithBlock(expiresAt: number | undefined, until: number, now: number): number {
  const pttl = expiresAt === undefined ? -2 : Math.floor((expiresAt - now) / 1000);
  return Math.max(pttl, ttlMsFromMicros(until - now));
}

/**
 * The algorithm with blocks (state-ops.model.ts): a blocked key denies at once; a block
 * past its end is dropped; a denial with `blockMicros` > 0 blocks the key for that long,
 * unless the request could never pass (a cost above the limit says nothing of the key's rate).
 * Its argv starts with the block, then the algorithm's own.
 */
export function blockable<P, R, S>(
  algorithm: LimiterAlgorithm<P, R, S>,
  stateType: StateType,
): LimiterAlgorithm<P & BlockParams, R, Blockable<S>> {
  const lua = `${blockLua(stateType)}${localFunction('decide', algorithm.lua)}${SHIFT_ARGV}
local block = tonumber(argv[1])
local until_ = read_block()
if until_ then
  if now < until_ then
    return {0, 0, until_ - now, until_ - now, 0}
  end
  hide_block()
end
local reply = decide(key, now, rest)
if tonumber(reply[1]) == 0 and block > 0 and tonumber(reply[4]) >= 0 then
  write_block(now + block)
  return {0, reply[2], math.max(tonumber(reply[3]), block), math.max(tonumber(reply[4]), block), 0}
end
return reply`;
  return {
    ...algorithm,
    stateOf: algorithm.stateOf ?? algorithm,
    lua,
    paramsArgv: (params) => [String(params.blockMicros ?? 0), ...algorithm.paramsArgv(params)],
    step: (state, now, params, request, expiresAt) =>
      blockableStep(algorithm, state, now, params, request, expiresAt),
  };
}

function blockableStep<P, R, S>(
  algorithm: LimiterAlgorithm<P, R, S>,
  state: Blockable<S> | undefined,
  now: number,
  params: P & BlockParams,
  request: R,
  expiresAt: number | undefined,
): MemoryStep<Blockable<S>> {
  const until = state?.blockedUntilMicros;
  if (until !== undefined && now < until) {
    return { state, ttlMs: null, reply: blockedReply(until, now) };
  }
  const inner = algorithm.step(state?.inner, now, params, request, expiresAt);
  // The Lua drops a stale block by rewriting the value with its TTL kept.
  const changed = inner.ttlMs !== null || until !== undefined;
  let innerExpiresAt = inner.ttlMs === null ? expiresAt : now + inner.ttlMs * 1000;
  if (inner.state === undefined) innerExpiresAt = undefined;
  const block = params.blockMicros ?? 0;
  if (inner.reply[0] === 0 && block > 0 && inner.reply[3] >= 0) {
    const [, remaining, reset, retryAfter] = inner.reply;
    return {
      state: { inner: inner.state, blockedUntilMicros: now + block },
      ttlMs: ttlWithBlock(innerExpiresAt, now + block, now),
      reply: [0, remaining, Math.max(reset, block), Math.max(retryAfter, block), 0],
    };
  }
  if (!changed) return { state, ttlMs: null, reply: inner.reply };
  if (inner.state === undefined) return { state: undefined, ttlMs: null, reply: inner.reply };
  return {
    state: { inner: inner.state },
    ttlMs: (innerExpiresAt! - now) / 1000,
    reply: inner.reply,
  };
}
