import { LimiterAlgorithm, MemoryStep } from '../limiter-algorithm';
import { blockLua, localFunction } from './block-lua';
import { ttlWithBlock } from './blockable';
import { Blockable, RefundRequest, refundArgv, StateType } from './state-ops.model';

type Algorithm<P, R, S> = LimiterAlgorithm<P, R, S>;

/** The operations on one algorithm's key besides acquiring (state-ops.model.ts). */
export interface StateOps<P, R, S> {
  /** The acquire's decision, nothing changed; its waitMicros is the block left. */
  peek: Algorithm<P, R, Blockable<S>>;
  reset: Algorithm<P, void, Blockable<S>>;
  /** Blocks the key for the request's µs from now. */
  block: Algorithm<P, number, Blockable<S>>;
  /** Absent for an algorithm without refunds (concurrency releases instead). */
  refund?: Algorithm<P, RefundRequest, Blockable<S>>;
}

const DONE = [1, 0, 0, 0, 0] as const;

/**
 * Builds the operations of a blockable acquire (see blockable.ts) of `stateType`, with
 * `refund` the algorithm's own refund (it runs on the state with any block hidden).
 */
export function stateOps<P, R, S>(
  acquire: Algorithm<P, R, Blockable<S>>,
  stateType: StateType,
  refund?: Algorithm<P, RefundRequest, S>,
): StateOps<P, R, S> {
  const name = acquire.commandName;
  return {
    peek: peekOf(acquire, stateType),
    reset: resetOf(acquire),
    block: {
      commandName: `${name}Block`,
      forgetsDenials: true,
      stateOf: acquire.stateOf ?? acquire,
      lua: `${blockLua(stateType)}
if read_block() then
  hide_block()
end
write_block(now + tonumber(argv[1]))
return {1, 0, 0, 0, 0}`,
      paramsArgv: () => [],
      requestArgv: (micros) => [String(micros)],
      step: (state, now, _params, micros, expiresAt) => {
        const until = now + micros;
        return {
          state: { inner: state?.inner, blockedUntilMicros: until },
          ttlMs: ttlWithBlock(expiresAt, until, now),
          reply: DONE,
        };
      },
      limit: acquire.limit,
    },
    refund: refund && { ...refundOf(refund, stateType), stateOf: acquire.stateOf ?? acquire },
  };
}

/** Forgets the key: DEL, or the memory entry dropped. */
export function resetOf<P, S>(acquire: Algorithm<P, any, S>): Algorithm<P, void, S> {
  return {
    commandName: `${acquire.commandName}Reset`,
    forgetsDenials: true,
    stateOf: acquire.stateOf ?? acquire,
    lua: `redis.call('DEL', key)\nreturn {1, 0, 0, 0, 0}`,
    paramsArgv: () => [],
    step: () => ({ state: undefined, ttlMs: null, reply: DONE }),
    limit: acquire.limit,
  };
}

/**
 * The acquire's decision on a snapshot of the key, restored after: what a request could
 * take, and the block left (in the reply's wait). `acquire` may keep no blocks (then the
 * block left is 0).
 */
export function peekOf<P, R, S>(
  acquire: Algorithm<P, R, S>,
  stateType: StateType,
): Algorithm<P, R, S> {
  // The engine prelude's snapshot and restore: value and TTL exactly as before.
  const lua = `${blockLua(stateType)}${localFunction('decide', acquire.lua)}
local left = math.max(0, (read_block() or now) - now)
local saved = snapshot(key)
local reply = decide(key, now, argv)
restore(key, saved)
local remaining = tonumber(reply[2])
if tonumber(reply[1]) == 1 then
  remaining = remaining + 1
end
return {reply[1], remaining, reply[3], reply[4], left}`;
  return {
    ...acquire,
    commandName: `${acquire.commandName}Peek`,
    stateOf: acquire.stateOf ?? acquire,
    lua,
    denialScope: undefined,
    readsOnly: true,
    step: (state, now, params, request, expiresAt) => {
      const until = (state as Partial<Blockable<unknown>> | undefined)?.blockedUntilMicros ?? now;
      const [allowed, remaining, reset, retryAfter] = acquire.step(
        state,
        now,
        params,
        request,
        expiresAt,
      ).reply;
      const before = allowed === 1 ? remaining + 1 : remaining;
      const reply = [allowed, before, reset, retryAfter, Math.max(0, until - now)] as const;
      return { state, ttlMs: null, reply };
    },
  };
}

function refundOf<P, S>(
  refund: Algorithm<P, RefundRequest, S>,
  stateType: StateType,
): Algorithm<P, RefundRequest, Blockable<S>> {
  const lua = `${blockLua(stateType)}${localFunction('give_back', refund.lua)}
local until_ = read_block()
if until_ then
  hide_block()
end
give_back(key, now, argv)
if until_ and until_ > now then
  write_block(until_)
end
return {1, 0, 0, 0, 0}`;
  return {
    ...refund,
    forgetsDenials: true,
    isDecision: () => false,
    lua,
    requestArgv: refundArgv,
    step: (state, now, params, request, expiresAt) =>
      refundStep(refund, state, now, params, request, expiresAt),
  };
}

function refundStep<P, S>(
  refund: Algorithm<P, RefundRequest, S>,
  state: Blockable<S> | undefined,
  now: number,
  params: P,
  request: RefundRequest,
  expiresAt: number | undefined,
): MemoryStep<Blockable<S>> {
  const until = state?.blockedUntilMicros;
  const inner = refund.step(state?.inner, now, params, request, expiresAt);
  let innerExpiresAt = inner.ttlMs === null ? expiresAt : now + inner.ttlMs * 1000;
  if (inner.state === undefined) innerExpiresAt = undefined;
  if (until !== undefined && until > now) {
    return {
      state: { inner: inner.state, blockedUntilMicros: until },
      ttlMs: ttlWithBlock(innerExpiresAt, until, now),
      reply: DONE,
    };
  }
  if (inner.state === undefined) return { state: undefined, ttlMs: null, reply: DONE };
  if (inner.ttlMs === null && until === undefined) return { state, ttlMs: null, reply: DONE };
  return { state: { inner: inner.state }, ttlMs: (innerExpiresAt! - now) / 1000, reply: DONE };
}
