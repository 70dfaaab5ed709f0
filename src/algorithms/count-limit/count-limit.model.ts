/*
 * How the fixed-window counter decides
 * ====================================
 *
 * One counter per key and window. A request of `permits` reads the count (GET) and is
 * allowed while count + permits <= limit: then the count grows by its permits (INCRBY;
 * the first request of a window creates it with a TTL of one period). A denial writes no
 * count, so a refund after denials gives back exactly what allowed requests took. When the
 * key expires, the next request opens a new window. The time left in the window (PTTL) is
 * the reset time and, for a denied request, the retry-after.
 *
 * Cost: `permits` 0 (a peek) is decided as a request of 1 and writes nothing: it passes only
 * while the window has room for one; more than `limit` is denied at once
 * and can never pass (retry-after -1, the count untouched), as redis-cell answers a quantity
 * above its burst. A denial reports what is left: 10 - 8 = 2 remaining for a request of 4.
 *
 * It costs one GET (plus PTTL and the INCRBY) and is exact under any concurrency (one
 * script), but it is a fixed window: a client may spend `limit` at the end of one window
 * and `limit` again at the start of the next, 2 * limit within one period across the
 * boundary. Use `@SlidingWindowLimit` where that matters.
 *
 * Self-healing: a counter found without a TTL (a crash between INCR and PEXPIRE cannot
 * happen inside one script, but a manual SET or a restore can) gets one period again,
 * so it never blocks a key forever.
 */
import { integerAtLeastOne, secondsOption, timeInRange } from '../option-rules';
import { Seconds } from '../duration';

/** Options of a fixed-window counter, as `@CountLimit` and `factory.countLimiter` take them. */
export interface CountLimiterOptions {
  /** Permits (requests, unless a request costs more) allowed per window: an integer >= 1. Default 1. */
  limit?: number;
  /** Window length: seconds (fractions allowed) or a duration such as '1m', > 0. Default 1. */
  period?: Seconds;
}

export interface CountLimitParams {
  limit: number;
  periodMs: number;
}

export interface CountLimitState {
  count: number;
  windowEndMicros: number;
}

const COUNT_LIMIT_DEFAULTS = { limit: 1, period: 1 } as const;

export function countLimitParams(
  options: CountLimiterOptions,
  where = 'countLimiter',
): CountLimitParams {
  const limit = options.limit ?? COUNT_LIMIT_DEFAULTS.limit;
  const given = options.period ?? COUNT_LIMIT_DEFAULTS.period;
  const seconds = secondsOption(given, where, 'period');
  integerAtLeastOne(limit, where, 'limit');
  const period = timeInRange(seconds, where, 'period', given);
  // PEXPIRE takes whole milliseconds.
  return { limit, periodMs: Math.max(1, Math.ceil(period * 1000)) };
}

/** The parameters as count-limit.lua reads them, after the block: its `argv`. */
export function countLimitArgv(params: CountLimitParams): string[] {
  return [String(params.limit), String(params.periodMs)];
}
