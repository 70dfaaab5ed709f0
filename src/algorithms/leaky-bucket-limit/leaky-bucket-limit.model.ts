/*
 * How the leaky bucket (GCRA) decides, and why
 * ============================================
 *
 * The naive leaky bucket is a queue drained at `rate` per second, or a level that leaks
 * and is topped up per request: two numbers (level, last update) read, recomputed and
 * written on every request, and a drain timer or a float that drifts.
 *
 * GCRA (the generic cell rate algorithm, as redis-cell's CL.THROTTLE implements it) keeps
 * one number: the theoretical arrival time `tat` (µs), when the bucket would be empty if
 * requests kept arriving exactly at the rate. With the emission interval T = 1 / rate and
 * the delay tolerance tau = T * capacity, a request of quantity n (its permits) at `now`:
 *
 *   tat     = max(now, stored tat, or now when there is none)
 *   newTat  = tat + n * T
 *   allowAt = newTat - tau
 *   n > capacity:   denied, can never pass (retryAfter -1), nothing written
 *   now < allowAt:  denied, retryAfter = allowAt - now, nothing written
 *   n = 0:          a peek: decided as n = 1 (newTat = tat + T), nothing written
 *   otherwise:      allowed, store newTat
 *   reset = (newTat if written, else tat) - now,  remaining = max(0, floor((tau - reset) / T))
 *
 * So `capacity` requests may arrive at once and then one every T: the bucket holds
 * `capacity`, leaks one every T, and `tat - now` is its level measured in time.
 * Invariants: allowed implies 0 <= reset <= tau, hence 0 <= remaining <= capacity;
 * a denied request of n <= capacity has 0 < retryAfter <= n * T.
 *
 * Example, capacity 3, rate 1/s (T = 1 s, tau = 3 s):
 *
 *   t=0    tat 0 -> newTat 1, allowAt -2: allowed, reset 1 s, remaining 2
 *   t=0    tat 1 -> newTat 2, allowAt -1: allowed, reset 2 s, remaining 1
 *   t=0    tat 2 -> newTat 3, allowAt  0: allowed, reset 3 s, remaining 0
 *   t=0    tat 3 -> newTat 4, allowAt  1: denied, retryAfter 1 s, reset 3 s
 *   t=1    tat 3 -> newTat 4, allowAt  1: allowed, reset 3 s, remaining 0
 *   t=3.5  tat 4 -> newTat 5, allowAt  2: allowed, reset 1.5 s, remaining 1
 *
 * Mapping to `CL.THROTTLE key max_burst count period quantity`: capacity = max_burst + 1,
 * rate = count / period, permits = quantity; its reply [limited, limit, remaining,
 * retry_after, reset_after] is our [!allowed, limit (= capacity), remaining, retryAfterMs
 * (0 instead of -1 when allowed; -1 for a quantity it can never serve), resetMs], in ms
 * rather than whole seconds. redis-cell's own test table (`it_rate_limits`) runs against
 * both stores in test/integration/redis-cell-table.spec.ts.
 *
 * Units: redis-cell works in integer nanoseconds; we keep integer microseconds, rounding
 * T to the nearest whole µs (at least 1). That bends a rate by under 0.5 µs per request
 * and keeps every reply exact; a rate above 1,000,000 a second (T under 1 µs) is refused,
 * as is one so slow, or a capacity so large, that capacity * T passes 3650 days (the TAT,
 * that far ahead of the clock, would no longer be a whole µs: option-rules.ts).
 *
 * TTL: once now >= tat the stored tat decides nothing (max(now, tat) = now), so the key
 * lives newTat - now after each allowed request (PX, whole ms rounded up). A denial
 * writes nothing.
 *
 * State under older options: under its options, tat - now <= tau after any request; only a
 * settled cost (a charge) runs it further, on purpose. The key stores the fingerprint of the
 * options (capacity and T, options-fingerprint.ts) beside the tat, `tat~fingerprint`. Written
 * under others (a corrected rate or capacity), a tat beyond now + tau is cut to now + tau
 * at its next decision or charge, and written back with the current fingerprint: a full
 * bucket, which never admits more than an empty one would from a fresh start, and whose
 * retryAfter is at most n * T. Under the same options, a settled debt is kept whole.
 */
import { integerAtLeastOne, rateInRange, spanInRange } from '../option-rules';
import { exactString } from '../limiter-algorithm';
import { fingerprintOf, withFingerprint } from '../options-fingerprint';

/** Options of a leaky bucket, as `@LeakyBucketLimit` and `factory.leakyBucketLimiter` take them. */
export interface LeakyBucketLimiterOptions {
  /** Requests that may arrive at once: an integer >= 1 (redis-cell's max_burst + 1). */
  capacity: number;
  /** Requests drained per second (fractions allowed), > 0. */
  rate: number;
}

export interface LeakyBucketLimitParams {
  capacity: number;
  /** T = 1 / rate, in whole microseconds, at least 1. */
  intervalMicros: number;
}

/** The memory twin's state: the theoretical arrival time in µs. */
export interface LeakyBucketLimitState {
  tatMicros: number;
  /** The options it was written under (see above); absent: unknown, cut as others. */
  fingerprint?: string;
}

export function leakyBucketLimitParams(
  options: LeakyBucketLimiterOptions,
  where = 'leakyBucketLimiter',
): LeakyBucketLimitParams {
  const { capacity, rate } = options;
  integerAtLeastOne(capacity, where, 'capacity');
  rateInRange(rate, where);
  const intervalMicros = Math.max(1, Math.round(1_000_000 / rate));
  // The TAT runs up to capacity * T ahead of the clock.
  spanInRange(capacity, intervalMicros, rate, where);
  return { capacity, intervalMicros };
}

/** The parameters as leaky-bucket-limit.lua reads them, after the block: its `argv`. */
export function leakyBucketLimitArgv(params: LeakyBucketLimitParams): string[] {
  return withFingerprint(params, ownArgv);
}

/** The fingerprint of the options a tat is written under (see above). */
export const leakyBucketFingerprint = (params: LeakyBucketLimitParams): string =>
  fingerprintOf(params, ownArgv);

const ownArgv = (params: LeakyBucketLimitParams): string[] => [
  String(params.capacity),
  exactString(params.intervalMicros),
];
