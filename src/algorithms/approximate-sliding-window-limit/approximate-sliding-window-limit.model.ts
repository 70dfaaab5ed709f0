/*
 * How the approximate sliding window decides, and why
 * ====================================================
 *
 * The exact log (`sliding-window-limit.model.ts`) remembers every allowed request, so its key
 * grows with the limit: a limit of 10,000 an hour keeps up to 10,000 members. A fixed
 * window keeps one counter but lets a client spend 2 * limit around a boundary.
 *
 * The sliding window *counter* keeps two fixed-window counts and interpolates. Windows
 * are aligned to multiples of `window` on the store's clock:
 *
 *   index   = floor(now / window)            the current window
 *   elapsed = now - index * window           how far into it we are
 *
 * The key holds the current window's index and count (`curr`) and the previous window's
 * count (`prev`). A request first rolls the state forward: if the stored index is the
 * current one, nothing moves; if it is the one before, its count becomes `prev` and
 * `curr` starts at 0; anything older counts for nothing. It then assumes the previous
 * window's requests were spread evenly over it, so the part of it still inside a window
 * ending now is
 *
 *   estimate = prev * (window - elapsed) / window + curr
 *
 * and the request is allowed when estimate + permits <= limit (then curr += permits);
 * otherwise it is denied and nothing changes. `permits` 0 (a peek) is decided as a request
 * of 1 and writes nothing: it passes only while the estimate leaves room for one; more than
 * `limit` is denied at once and can never pass (retry-after -1, as redis-cell answers a
 * quantity above its burst). Every comparison is made multiplied out by `window`, in whole
 * µs, so Lua and TypeScript agree to the unit and no rounding ever allows a request (exact
 * while limit * window in µs stays below 2^53, which the options' check holds: a limit of
 * 100,000 a day is fine, 1,000,000 a day is refused).
 *
 * Retry time. If no other request came, when would one of `permits` fit?
 * - If curr + permits <= limit, the weight of `prev` alone is in the way, and it shrinks
 *   as `elapsed` grows: the smallest e with prev * (window - e) <= (limit - curr - permits)
 *   * window. It is at most `window`: at the next boundary `curr` becomes the new `prev`,
 *   and curr + permits <= limit already fits.
 * - Otherwise this window is spent: in the next one, `curr` becomes `prev`, and the
 *   smallest e' with curr * (window - e') <= (limit - permits) * window is waited for
 *   after the boundary.
 * retryAfter is that moment minus now, in whole µs rounded up, so a request at
 * now + retryAfter is allowed and any earlier one is not.
 *
 * Example, limit 10, window 10 s, starting at a boundary:
 *
 *   t=0     prev 0, curr 0..9   -> 10 allowed; the 11th: estimate 10, denied, retry 11 s
 *                                  (the boundary, then 10 * (10 - e)/10 + 1 <= 10: e = 1 s)
 *   t=10 s  prev 10, curr 0     -> estimate 10 * 10/10 = 10: denied, retry 1 s
 *   t=15 s  prev 10, curr 0     -> estimate 10 * 5/10 = 5: 5 allowed, the 6th denied
 *   t=20 s  prev 5, curr 0      -> estimate 5: 5 more allowed
 *
 * Reset (the limit fully restored if nothing else comes): the end of the next window when
 * curr > 0, the end of this one when only prev > 0, now (0) when neither. TTL: `curr` still weighs in the next
 * window, and nothing after it, so the key lives until the end of the next window,
 * (index + 2) * window - now; a denial writes nothing and keeps the TTL. The state is one
 * short string, whatever the limit. The estimate errs when requests in the previous window
 * were not spread evenly: Cloudflare measured 0.003 % of decisions wrong on real traffic.
 * Invariants: 0 <= curr <= limit; 0 <= prev <= limit; retryAfter > 0 when denied.
 */
import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import {
  SlidingWindowLimiterOptions,
  SlidingWindowLimitParams,
  slidingWindowLimitParams,
} from '../sliding-window-limit/sliding-window-limit.model';

/** The limit's parameters: the exact log's, validated by the same function. */
export type ApproximateSlidingWindowLimitParams = SlidingWindowLimitParams;

/** The memory twin's state: the same three numbers the Lua keeps in one string. */
export interface ApproximateSlidingWindowLimitState {
  index: number;
  curr: number;
  prev: number;
}

/** The counts a request at window `index` sees after rolling the stored state forward. */
export function rollForward(
  state: ApproximateSlidingWindowLimitState | undefined,
  index: number,
): { curr: number; prev: number } {
  if (state && state.index === index) return { curr: state.curr, prev: state.prev };
  if (state && state.index === index - 1) return { curr: 0, prev: state.curr };
  return { curr: 0, prev: 0 };
}

/**
 * The first elapsed time e (µs into a window) with weight * (window - e) <= room * window,
 * i.e. when a count of `weight` from the window before leaves `room` free: window minus the
 * largest whole span s with weight * s <= room * window. That s is floor(room * window /
 * weight), whose quotient in doubles may round up across a whole number but never down
 * (room * window is exact: limit * window stays below 2^53), so one check in whole numbers
 * corrects it. A closed form, not a search: no window, however long, makes it loop. The
 * Lua does exactly the same.
 */
export function firstElapsedWithRoom(weight: number, room: number, window: number): number {
  if (weight <= 0) return 0;
  const fits = room * window;
  let span = Math.floor(fits / weight);
  if (span * weight > fits) span -= 1;
  return Math.max(0, window - span);
}

/** One request: how many permits it takes (an integer >= 0; default 1). */
export interface ApproximateSlidingWindowLimitRequest {
  permits: number;
}

/** The sliding window's parameters, for options that chose the estimate (`approximate: true`). */
export function approximateSlidingWindowLimitParams(
  options: SlidingWindowLimiterOptions,
  where: string,
): ApproximateSlidingWindowLimitParams {
  if (options.approximate !== true) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'approximate', options.approximate, 'a boolean'),
    );
  }
  const params = slidingWindowLimitParams(options, where);
  // Every estimate is compared multiplied out by the window: limit * window must stay exact.
  if (params.limit * params.windowMicros > Number.MAX_SAFE_INTEGER) {
    const longest = Math.floor(Number.MAX_SAFE_INTEGER / params.limit) / 1_000_000;
    throw new LimiterConfigError(
      limiterMessages.invalidOption(
        where,
        'window',
        options.window,
        `at most ${longest} seconds with option 'limit' at ${params.limit} (limit * window in µs below 2^53)`,
      ),
    );
  }
  return params;
}
