import type { LimiterAlgorithm } from '../limiter-algorithm';
/*
 * State you can act on: block, peek, reset and refund, for every algorithm.
 *
 * Where a block lives. It must survive an app-server restart and work on Cluster, so it is
 * kept in the limit's own key, beside the algorithm's state, and costs nothing while no
 * key is blocked:
 *   - a string state (token bucket E, leaky bucket TAT, window counts) gets a suffix,
 *     `<state>!<until µs>` (just `!<until>` when the key had no state);
 *   - a zset state (the sliding log) gets a reserved member `#block` scored by the until-time.
 * The key's TTL becomes max(its own, the block's end). Every acquire first looks for a
 * block: while one holds, the request is denied with retryAfter = the time left and
 * nothing else happens (so refused requests never extend it); a block found past its end
 * is removed and the algorithm runs on its own state, which it never sees with a suffix.
 * Doing this once, around each algorithm's Lua (blockable.ts), rather than inside each of
 * them, keeps every algorithm's script and twin unchanged and the rule in one place.
 *
 * Escalating blocks (`block: [60, 300, 3600]`). The key remembers the step its last block
 * used (its level) beside the block's end: a denial blocks for the step after it (the last
 * step once there), and a key that stays free of violations for the last step's length after
 * its block ends starts again at the first. So the level outlives the block: the key's TTL
 * covers the block's end plus the last step, and the level is kept while requests are allowed
 * in between. Kept as `<state>!<until>!<level>!<state's own expiry µs>` for a string state
 * (the state's expiry is restored when the suffix is removed: a fixed window's counter must
 * end with its window, not with the level), and as a `#level` member scored by the level
 * beside `#block` in a zset (whose algorithms time their state themselves). A single step
 * keeps the plain form, so `block: 60` and `block: [60]` write the same.
 *
 * Blocks under older options. A block a denial wrote under a longer block than the current
 * options give (their `block`, or the step of the block's level) is cut, at the key's next
 * acquire, to end that long from then, and dropped when they give none (blockable.lua's
 * `current_block`): a corrected `block: 3600` to `10` answers 10 s, not the hour. A block set
 * by hand (`block(seconds)`, the admin's) has its own duration, which no option bounds: it is
 * written in the level form with level 0, which starts no escalation and is never cut.
 *
 * Peek snapshots the key (DUMP and its absolute expiry), runs the acquire, and restores it
 * (RESTORE … REPLACE ABSTTL, or DEL when there was no key): the value and TTL are exactly
 * what they were, whatever the algorithm. Reset is DEL. Refund is per algorithm (each
 * `<name>.refund.lua`); it never raises a limit above its maximum and never touches a
 * window newer than the one the acquire counted in. Charge is per algorithm too (each
 * `<name>.charge.lua`, the token bucket's its acquire without a timeout, the counter's and
 * the approximate window's their acquire without the limit): it takes permits
 * whatever the limit, so a settled cost may leave the key in debt, repaid as it recovers.
 */

import { Seconds } from '../duration';
import {
  blockMicros,
  DURATION_EXPECTED,
  MAX_SECONDS,
  MIN_SECONDS,
  parseDuration,
} from '../option-rules';

/** The Redis type of an algorithm's key: where a block is kept (see above). */
export type StateType = 'string' | 'zset';

/** Every blockable limit's parameters carry the block after a denial, in whole µs (0: none). */
export interface BlockParams {
  /** The block, or the first step of escalating ones. */
  blockMicros?: number;
  /** Escalating blocks' steps (two or more), in whole µs; absent for a single block. */
  blockStepsMicros?: readonly number[];
}

/**
 * One refund. `id` names the acquire's own member (the sliding log); `resetLeftMicros` is
 * the acquire's reset time minus the time elapsed since, by the caller's clock, which
 * tells a windowed algorithm which window the acquire counted in (a duration, so clocks
 * need not agree). Without them, the newest request or the current window is refunded.
 */
export interface RefundRequest {
  permits: number;
  id?: string;
  resetLeftMicros?: number;
  /**
   * Instead of `resetLeftMicros`: the acquire's window by its end on the store's clock, in
   * µs (a lease's give-back, which may be sent long after its window ended).
   */
  windowEndsAtMicros?: number;
}

/** The twin of a refund or a charge script (`<name>.refund.lua`, `<name>.charge.lua`). */
export type AdjustmentStep<P, S> = LimiterAlgorithm<P, RefundRequest, S>['step'];

/** The argv every refund script reads after the limit's parameters. */
export function refundArgv(request: RefundRequest): string[] {
  return [String(request.permits), request.id ?? '', windowArg(request)];
}

/** The acquire's window as a refund script reads it (count-limit.refund.lua). */
function windowArg({ resetLeftMicros, windowEndsAtMicros }: RefundRequest): string {
  if (windowEndsAtMicros !== undefined) return `@${Math.round(windowEndsAtMicros)}`;
  return resetLeftMicros === undefined ? '' : String(Math.round(resetLeftMicros));
}

/**
 * A block's memory-twin state: the algorithm's own state and the block's end, if any; for
 * escalating blocks the step the last block used (1-based; 0 for a block set by hand) and, for a string state, when the
 * algorithm's own state expires (as the Lua records it from PTTL).
 */
export interface Blockable<S> {
  inner: S | undefined;
  blockedUntilMicros?: number;
  level?: number;
  innerExpiresAtMicros?: number;
}

/** What peek reports, in ms. @publicApi */
export interface LimitState {
  limit: number;
  /** Permits or requests a request could take now. */
  remaining: number;
  /**
   * Milliseconds until the key's state is fully recovered if nothing else happens, as it
   * stands (0: nothing to recover): the token bucket full again, the leaky bucket drained,
   * the fixed window's end, the newest logged request out of the sliding window, the
   * approximate window's counts no longer weighing, the last concurrency lease expired; and
   * never before a block ends.
   */
  resetMs: number;
  /** Milliseconds the key stays blocked; 0 when it is not. */
  blockedMs: number;
  /**
   * Permits this server holds on lease (`lease: n`) and has not handed out: counted as taken
   * in `remaining`. Absent when none; other servers' leases are not known here.
   */
  leased?: number;
}

/** What a peek's decision (a request of 0 permits, state-ops.ts) says of the key. */
export function limitStateOf(decision: {
  limit: number;
  remaining: number;
  resetMs: number;
  waitMs: number;
}): LimitState {
  const { limit, remaining, resetMs, waitMs } = decision;
  return { limit, remaining, resetMs, blockedMs: waitMs };
}

/**
 * The µs of `block(seconds)` on a factory limiter (seconds or a duration); a RangeError for
 * anything but a time > 0.
 */
export function manualBlockMicros(given: Seconds): number {
  const seconds = typeof given === 'string' ? parseDuration(given) : given;
  if (seconds === undefined) {
    throw new RangeError(`block(seconds): ${DURATION_EXPECTED}, got '${given}'`);
  }
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
    throw new RangeError(`block(seconds): a finite number > 0, got ${String(given)}`);
  }
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) {
    throw new RangeError(
      `block(seconds): from 1ms to 3650d (${MIN_SECONDS} to ${MAX_SECONDS} seconds), got ${String(given)}`,
    );
  }
  return blockMicros(seconds);
}
