/*
 * How the sliding-window log decides, and why
 * ===========================================
 *
 * The naive window is a counter that resets every `window` seconds (`@CountLimit`). It
 * is cheap, but the window is fixed: a client can spend `limit` just before a boundary
 * and `limit` again just after it, 2 * limit within one window's length. Interpolating
 * between two counters (the "sliding window counter") only estimates the count.
 *
 * We keep the log itself: one sorted set per key, one member per allowed request, scored
 * by the request's time in µs. A request may weigh more than one permit: its member carries
 * its weight (`<id>`, or `<id>\0<weight>` above 1), so the log still has one member per
 * request and at most `limit` members. A request of `permits` at `now` counts the weight
 * of the last `window`, i.e. of the members with time t > now - window:
 *
 *   drop every t <= now - window                     (ZREMRANGEBYSCORE -inf now-window)
 *   count = the weight of what remains               (ZRANGE, O(limit))
 *   permits > limit:          denied, can never pass (retryAfter -1), nothing added
 *   count + permits <= limit: add now (permits 0, a peek, adds nothing and needs room for
 *                             one, as a request of 1), allowed,
 *                             remaining = limit - count - permits
 *   otherwise:                denied, nothing added, remaining = limit - count (>= 0)
 *
 * A request at t leaves the window at t + window, so a denied request may retry when
 * enough weight has left, oldest first: for a request of 1 at count == limit, when the
 * oldest leaves, retryAfter = oldest + window - now. The window is empty again, reset, when
 * the newest leaves: newest + window - now.
 * Denied requests are not logged: the log holds allowed requests only, so a client that
 * keeps retrying is not locked out for longer.
 *
 * Members must be unique even for two requests in the same microsecond from two servers
 * (a zset keeps one member once), so each request carries an id made in TypeScript
 * (`crypto.randomUUID()`) and the member is that id (with its weight above 1), so a refund
 * removes exactly its own request (state-ops.model.ts); decisions read the scores and the
 * weights.
 *
 * Example, limit 3, window 1 s:
 *
 *   t=0.0  log []                 -> allowed, log [0.0]            remaining 2
 *   t=0.2  log [0.0]              -> allowed, log [0.0 0.2]        remaining 1
 *   t=0.5  log [0.0 0.2]          -> allowed, log [0.0 0.2 0.5]    remaining 0, reset 1.0 s
 *   t=0.7  log [0.0 0.2 0.5]      -> denied, retryAfter 0.3 s (0.0 leaves at 1.0), reset 0.8 s
 *   t=1.0  0.0 dropped: [0.2 0.5] -> allowed, log [0.2 0.5 1.0]    remaining 0
 *
 * TTL: every member leaves the window at most `window` after the newest was added, so
 * the key expires `window` after each allowed request (PEXPIRE, whole ms rounded up). A
 * denial adds nothing and keeps the TTL. Invariants: 0 <= count <= limit after an allowed
 * request; retryAfter > 0 when denied; memory O(limit) per key.
 */
import { integerAtLeastOne, secondsOption, timeInRange } from '../option-rules';
import { Seconds } from '../duration';
import { exactString } from '../limiter-algorithm';

/** Options of a sliding-window log, as `@SlidingWindowLimit` and `factory.slidingWindowLimiter` take them. */
export interface SlidingWindowLimiterOptions {
  /** Permits (requests, unless a request costs more) allowed within any window: an integer >= 1. */
  limit: number;
  /** Window length: seconds (fractions allowed) or a duration such as '1m', > 0. */
  window: Seconds;
  /**
   * Estimate from two fixed-window counts instead of logging every request: a few bytes a
   * key whatever the limit, at a small error (see approximate-sliding-window-limit.model.ts).
   * Default false. Its keys take the prefix 'slidingWindowApprox:'.
   */
  approximate?: boolean;
}

export interface SlidingWindowLimitParams {
  limit: number;
  /** Whole microseconds, at least 1. */
  windowMicros: number;
}

/** One request: `id` makes its zset member unique (see above); `permits` is its weight (default 1). */
export interface SlidingWindowLimitRequest {
  id: string;
  permits?: number;
}

/** The memory twin's log: request times in µs, ascending, and each request's member (its id, with its weight above 1). */
export interface SlidingWindowLimitState {
  timesMicros: readonly number[];
  ids: readonly string[];
}

export function slidingWindowLimitParams(
  options: SlidingWindowLimiterOptions,
  where = 'slidingWindowLimiter',
): SlidingWindowLimitParams {
  const { limit } = options;
  const seconds = secondsOption(options.window, where, 'window');
  integerAtLeastOne(limit, where, 'limit');
  const window = timeInRange(seconds, where, 'window', options.window);
  return { limit, windowMicros: Math.max(1, Math.round(window * 1_000_000)) };
}

/** The parameters as sliding-window-limit.lua (and the approximate one) reads them, after the block: its `argv`. */
export function slidingWindowLimitArgv(params: SlidingWindowLimitParams): string[] {
  return [String(params.limit), exactString(params.windowMicros)];
}
