import { Decision, RawReply, toDecision } from '../contracts/decision';
import type { LuaDefinition } from './lua-source';

/** What a memory twin returns: the new state (undefined deletes it), its TTL and the reply. */
export interface MemoryStep<S> {
  state: S | undefined;
  /**
   * Milliseconds the state must be kept from now, as the Lua twin's PEXPIRE; null when the
   * script leaves the key untouched (state and TTL unchanged).
   */
  ttlMs: number | null;
  reply: RawReply;
  /**
   * Undoes what the step wrote beside the key's state (a quota's idempotency key), when a
   * group gives the step back: the twin of the Lua's `created_key` (prelude.lua).
   */
  undo?: () => void;
}

/**
 * One rate-limiting algorithm, implemented twice: as a Lua script run atomically in Redis
 * and as a TypeScript twin for the memory store. Both take the same parameters and the
 * same time (microseconds) and must return the same {@link RawReply}.
 *
 * `P` are the limit's parameters (fixed per limit), `R` the request's own arguments, `S`
 * the memory twin's state for one key.
 */
export interface LimiterAlgorithm<P, R, S> {
  /** The algorithm's name in error messages and in what a remembered denial must match. */
  readonly commandName: string;
  /**
   * Lua source: the body of `function(key, now, argv)`, returning the {@link RawReply}. `now`
   * is the time in µs; `argv` holds {@link paramsArgv} then {@link requestArgv}. The store's
   * engine runs it, with the prelude's `exact`, `ttl_ms`, `snapshot` and `restore` in scope,
   * and `get_state(key)`: a string state's GET, answered without a second GET when the block
   * read of the same decision has just read the key. Absent for the package's own
   * algorithms, whose Lua is the engine library's (docs/engine.md): an algorithm of the app's
   * own has one, and makes the store run the engine as a script (EVALSHA).
   */
  readonly lua?: string;
  /**
   * For an algorithm of the app's own: the Lua its body calls besides the library's (a
   * `local function` or table of its own), in order of definition, each defined once.
   */
  readonly luaIncludes?: readonly LuaDefinition[];
  /** The first `argv` values, which depend on the limit only; the store caches them per params object. */
  paramsArgv(params: P): readonly string[];
  /** The `argv` values that follow, from one request; absent when the script needs none. */
  requestArgv?(request: R): readonly string[];
  /**
   * The memory twin: the same decision on a state held in process. `expiresAtMicros` is
   * when the state expires, as PTTL tells a script (undefined without state).
   */
  step(
    state: S | undefined,
    nowMicros: number,
    params: P,
    request: R,
    expiresAtMicros?: number,
  ): MemoryStep<S>;
  /** The `limit` a decision reports. */
  limit(params: P): number;
  /**
   * How its reply reads as a decision, where it says more than `toDecision` reads (a quota's
   * usage in the fifth value): absent for most.
   */
  decision?(reply: RawReply, limit: number): Decision;
  /**
   * Which requests a denial also denies until its retry time, as a string; absent when a
   * denial may end before then (concurrency slots are freed by other requests), in which
   * case denials are never cached. Undefined for a request no cached denial may answer.
   */
  denialScope?(request: R): string | undefined;
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
  readonly stateOf?: LimiterAlgorithm<any, any, any>;
  /**
   * False for a request that gives back rather than decides (a concurrency release, a
   * token-bucket refund), so
   * it is not reported as an `allowed` event; absent means every request decides.
   */
  isDecision?(request: R): boolean;
  /** True for a look that changes nothing (peek): it neither takes nor gives back. */
  readonly readsOnly?: boolean;
}

/** The decision a reply of `algorithm` with `params` stands for. */
export function decisionOf<P>(
  algorithm: LimiterAlgorithm<P, any, any>,
  reply: RawReply,
  params: P,
): Decision {
  const limit = algorithm.limit(params);
  return algorithm.decision ? algorithm.decision(reply, limit) : toDecision(reply, limit);
}

/** Whether a request of `algorithm` gives permits back: a refund or a release. */
export function givesBack<P, R, S>(algorithm: LimiterAlgorithm<P, R, S>, request: R): boolean {
  return algorithm.isDecision?.(request) === false;
}

/** Whether it takes permits: an acquire (not a peek, a reset, a block or a give-back). */
export function takesPermits<P, R, S>(algorithm: LimiterAlgorithm<P, R, S>, request: R): boolean {
  return !algorithm.readsOnly && !algorithm.forgetsDenials && !givesBack(algorithm, request);
}

/** Formats a number so that Lua's `tonumber` reads back the same double. */
export function exactString(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toPrecision(17);
}

/** Whole milliseconds of TTL for a span in µs, at least 1: the twin of the engine prelude's `ttl_ms`. */
export function ttlMsFromMicros(micros: number): number {
  return Math.max(1, Math.ceil(micros / 1000));
}
