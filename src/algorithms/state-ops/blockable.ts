import { RawReply } from '../decision';
import { LimiterAlgorithm, MemoryStep } from '../limiter-algorithm';
import { blockLua, localFunction, SHIFT_ARGV } from './block-lua';
import { hiddenBlock, withBlock } from './block-twin';
import { Blockable, BlockParams, StateType } from './state-ops.model';

export { ttlWithBlock } from './block-twin';

/** The reply of a request that finds its key blocked until `until`. */
export function blockedReply(until: number, now: number): RawReply {
  return [0, 0, until - now, until - now, 0];
}

/**
 * The block argument: the block in µs, or escalating steps joined by commas. Read in Lua as a
 * number when it is one, so a single block costs no parsing.
 */
function blockArgument(params: BlockParams): string {
  return params.blockStepsMicros
    ? params.blockStepsMicros.join(',')
    : String(params.blockMicros ?? 0);
}

const ACQUIRE = `local block = tonumber(argv[1])
local steps = nil
if not block then
  steps = {}
  for step in string.gmatch(argv[1], '[^,]+') do
    steps[#steps + 1] = tonumber(step)
  end
  block = steps[1]
end
local until_, level = read_block()
if until_ then
  if now < until_ then
    return {0, 0, until_ - now, until_ - now, 0}
  end
  hide_block()
  -- Quiet for the last step's length since the block ended: back to the first step.
  if not steps or (level and now >= until_ + steps[#steps]) then
    level = nil
  end
end
local reply = decide(key, now, rest)
-- A request that can never pass (retry -1: a cost above the limit) says nothing of the
-- key's rate: it blocks nothing.
if tonumber(reply[1]) == 0 and block > 0 and tonumber(reply[4]) >= 0 then
  local keep_until = nil
  if steps then
    level = math.min((level or 0) + 1, #steps)
    block = steps[level]
    keep_until = now + block + steps[#steps]
  end
  write_block(now + block, level, keep_until)
  return {0, reply[2], math.max(tonumber(reply[3]), block), math.max(tonumber(reply[4]), block), 0}
end
if level then
  -- Allowed between violations: the level is kept until the quiet period ends.
  write_block(until_, level, until_ + steps[#steps])
end
return reply`;

/**
 * The algorithm with blocks (state-ops.model.ts): a blocked key denies at once; a block
 * past its end is dropped; a denial with `blockMicros` > 0 blocks the key for that long, or
 * with `blockStepsMicros` for the step after the last block's, unless the request could
 * never pass (a cost above the limit says nothing of the key's rate). Its argv starts with
 * the block, then the algorithm's own.
 */
export function blockable<P, R, S>(
  algorithm: LimiterAlgorithm<P, R, S>,
  stateType: StateType,
): LimiterAlgorithm<P & BlockParams, R, Blockable<S>> {
  const lua = `${blockLua(stateType)}${localFunction('decide', algorithm.lua)}${SHIFT_ARGV}${ACQUIRE}`;
  return {
    ...algorithm,
    stateOf: algorithm.stateOf ?? algorithm,
    lua,
    paramsArgv: (params) => [blockArgument(params), ...algorithm.paramsArgv(params)],
    step: (state, now, params, request, expiresAt) =>
      blockableStep(algorithm, stateType, state, now, params, request, expiresAt),
  };
}

/** The memory twin of {@link ACQUIRE}. */
function blockableStep<P, R, S>(
  algorithm: LimiterAlgorithm<P, R, S>,
  stateType: StateType,
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
  const steps = params.blockStepsMicros;
  const lastStep = steps?.[steps.length - 1] ?? 0;
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
    if (!steps || (level !== undefined && now >= until + lastStep)) level = undefined;
  }
  const inner = algorithm.step(innerState, now, params, request, innerExpiresAt);
  // The Lua drops a stale block by rewriting the value with its TTL kept.
  const changed = inner.ttlMs !== null || until !== undefined;
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
    return {
      ...withBlock(inner.state, stateType, now, until!, afterExpiresAt, level, keepUntil),
      reply: inner.reply,
    };
  }
  if (!changed) return { state, ttlMs: null, reply: inner.reply };
  if (inner.state === undefined) return { state: undefined, ttlMs: null, reply: inner.reply };
  return {
    state: { inner: inner.state },
    ttlMs: (afterExpiresAt! - now) / 1000,
    reply: inner.reply,
  };
}
