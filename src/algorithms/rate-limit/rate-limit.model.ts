/*
 * How the token bucket decides, and why
 * =====================================
 *
 * The naive bucket refills `rate` permits a second up to a maximum and lets a request
 * through when enough permits are stored. It answers "now or never": a request that
 * would be allowed 50 ms later is simply refused, and when it is asked to wait instead,
 * concurrent waiters all compute the same "permits exist at t" and all wake at t,
 * overspending the limit (the Spring starter's `RedisPermits` did exactly that).
 *
 * We keep two numbers per bucket instead:
 *   stored    permits saved from idle time, 0 <= stored <= maxPermits
 *   nextFree  the moment (µs) from which a new request may be served
 * with maxPermits = rate * burst and interval = 1 / rate (µs per permit).
 *
 *   resync(now):  if now > nextFree:
 *                   stored   = min(maxPermits, stored + (now - nextFree) / interval)
 *                   nextFree = now
 *   earliest(n) = nextFree + max(0, n - stored) * interval
 *
 * A request for n permits with a timeout resyncs, then:
 *   - if earliest(n) - now > timeout it is denied, retryAfter = earliest(n) - now - timeout,
 *     and nothing changes (a denial reserves nothing);
 *   - otherwise it spends min(n, stored) saved permits, moves nextFree to earliest(n) and
 *     is told to wait earliest(n) - now.
 *
 * Cost: n is any integer >= 0. n = 0 (a peek) is decided as a request of 1 and writes
 * nothing: it passes only when one permit could be had within its timeout. A request that
 * even a full bucket could not serve within its timeout,
 * n * interval - maxPermits * interval > timeout, can never pass: it is denied with
 * retryAfter -1 and writes nothing (with a longer timeout, or acquire, it waits instead).
 *
 * Remembering the *next free* moment rather than the last refill is the key: the cost
 * of a reservation is paid by whoever comes next, so tryAcquire(timeout) answers at
 * once, and each waiter gets its own successive slot. Invariants: 0 <= spend <= stored,
 * wait >= 0, and after an allowed request stored > 0 only if nextFree == now.
 *
 * Example: one SMS a minute, rate = 1/60, burst = 60, so maxPermits = 1, interval = 60 s.
 *
 *   t=0   stored 1, nextFree 0   -> spend 1, stored 0, nextFree 0, allowed, wait 0
 *   t=10  resync: stored = min(1, 0 + 10/60) = 1/6, nextFree 10
 *         earliest(1) = 10 + (5/6) * 60 = 60 -> 50 s away > timeout 0: denied, Retry-After 50
 *   t=60  resync: stored = 1/6 + 50/60 = 1 -> allowed
 *
 * With a timeout (rate 10, burst 0.1: 1 permit, a new one every 100 ms), after one
 * acquire at t=0, three waiters arriving together get:
 *
 *   0 ms      100 ms     200 ms     300 ms
 *   |--A------|--B--------|--C--------|
 *   A: nextFree 0 -> 100   wait 100
 *   B: nextFree 100 -> 200 wait 200
 *   C: nextFree 200 -> 300 wait 300
 *
 * TTL: the state stops mattering once the bucket would be full with nothing reserved,
 * that is after (nextFree - now) + (maxPermits - stored) * interval. The key lives
 * max(expire, that), never less: a key expiring earlier would hand out a full bucket
 * too soon (the starter's fixed 60 s expire did).
 *
 * One stored number
 * -----------------
 * By the invariant above, the pair collapses into one moment, when the bucket was (or
 * will be) empty:  E = nextFree - stored * interval.  In its terms:
 *
 *   resync(now):  E = max(E, now - maxPermits * interval)      (a full bucket stops filling)
 *   stored      = max(0, (now - E) / interval)
 *   earliest(n) = max(now, E + n * interval)
 *   allowed:      E = E + n * interval,  wait = earliest(n) - now
 *   time until full = E + maxPermits * interval - now
 *   new bucket:   E = now - initialPermits * interval
 *
 * Each line follows from the two-number form (nextFree = max(now, E) after a resync, and
 * stored is 0 whenever nextFree > now). Redis keeps E as an integer of µs, followed by the
 * mark of what wrote it (see the end): one short string. E is rounded up when stored: a request
 * may pay up to 1 µs more, never less.
 *
 * State under older options: beside E the key holds a mark of what wrote it (the options'
 * fingerprint, and a decorator's timeout), and E written under other options is cut to the
 * current ones at its next decision: rate-limit.found.lua has the math.
 */
import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import { Seconds } from '../duration';
import { rateInRange, secondsOption, spanInRange, timeAtMostMax } from '../option-rules';
import { exactString } from '../limiter-algorithm';
import { checkPermits } from '../permits';
import { withFingerprint } from '../options-fingerprint';

/** Options of a token bucket, as `@RateLimit` and `factory.rateLimiter` take them (seconds). */
export interface RateLimiterOptions {
  /** Permits added per second. Default 1. */
  rate?: number;
  /**
   * How long the bucket accumulates: seconds or a duration such as '1m'; it holds
   * `rate * burst` permits. Default 1. Give `capacity` instead to size it in permits.
   */
  burst?: Seconds;
  /** Permits the bucket holds (`rate * burst`): the alternative to `burst`, not both. */
  capacity?: number;
  /** Permits in a new bucket, default the whole bucket (full). */
  initialPermits?: number;
  /** How long the state is kept at least after the last request: seconds or a duration. Default 60. */
  expire?: Seconds;
}

/** The bucket's fixed parameters, derived once per limit. */
export interface RateLimitParams {
  maxPermits: number;
  intervalMicros: number;
  initialPermits: number;
  expireMicros: number;
  /** How the user sized the bucket, for messages: 'capacity', else 'rate * burst'. */
  sizedBy?: string;
}

/** One request: `timeoutMicros` < 0 means wait as long as needed (acquire). */
export interface RateLimitRequest {
  permits: number;
  timeoutMicros: number;
  /** Set on a decorator's requests: its timeout is its limit's (see above). */
  byDecorator?: boolean;
}

/** The one stored number: when the bucket was or will be empty, in whole µs (see above). */
export interface RateLimitState {
  emptyAtMicros: number;
  /** The mark of what wrote it (rate-limit.found.lua); absent: cut as under other options. */
  fingerprint?: string;
}

const RATE_LIMIT_DEFAULTS = { rate: 1, burst: 1, expire: 60 } as const;

function invalid(where: string, option: string, value: unknown, expected: string): never {
  throw new LimiterConfigError(limiterMessages.invalidOption(where, option, value, expected));
}

const isFiniteAtLeast = (value: unknown, min: number): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= min;

export function rateLimitParams(
  options: RateLimiterOptions,
  where = 'rateLimiter',
): RateLimitParams {
  const rate = options.rate ?? RATE_LIMIT_DEFAULTS.rate;
  rateInRange(rate, where);
  const maxPermits = bucketSize(options, rate, where);
  const givenExpire = options.expire ?? RATE_LIMIT_DEFAULTS.expire;
  const expire = secondsOption(givenExpire, where, 'expire');
  if (!isFiniteAtLeast(expire, 0)) invalid(where, 'expire', givenExpire, 'a finite number >= 0');
  timeAtMostMax(expire, where, 'expire', givenExpire);
  const sizedBy = options.capacity === undefined ? 'rate * burst' : 'capacity';
  const initialPermits = options.initialPermits ?? maxPermits;
  if (!isFiniteAtLeast(initialPermits, 0) || initialPermits > maxPermits) {
    invalid(
      where,
      'initialPermits',
      initialPermits,
      `a number from 0 to ${sizedBy} (${maxPermits})`,
    );
  }
  return {
    maxPermits,
    intervalMicros: 1_000_000 / rate,
    initialPermits,
    expireMicros: expire * 1_000_000,
    sizedBy,
  };
}

/** The permits the bucket holds: `capacity`, or `rate * burst` (never both). */
function bucketSize(options: RateLimiterOptions, rate: number, where: string): number {
  const { capacity } = options;
  if (capacity !== undefined) {
    if (options.burst !== undefined) {
      throw new LimiterConfigError(limiterMessages.conflictingOptions(where, 'burst', 'capacity'));
    }
    if (!isFiniteAtLeast(capacity, 0) || capacity === 0) {
      invalid(where, 'capacity', capacity, 'a finite number > 0');
    }
    // A full bucket's span, E's distance behind the clock, within the engine's range.
    spanInRange(capacity, 1_000_000 / rate, rate, where);
    return capacity;
  }
  const givenBurst = options.burst ?? RATE_LIMIT_DEFAULTS.burst;
  const burst = secondsOption(givenBurst, where, 'burst');
  if (!isFiniteAtLeast(burst, 0)) invalid(where, 'burst', givenBurst, 'a finite number >= 0');
  timeAtMostMax(burst, where, 'burst', givenBurst);
  return rate * burst;
}

/** The bucket's accumulation in seconds (`burst`, or `capacity / rate`), to the µs. */
export function burstSeconds(params: RateLimitParams): number {
  // Whole µs: 1/60 permits a second times 60 s is 60.000000000000004 s in doubles.
  return Math.round(params.maxPermits * params.intervalMicros) / 1_000_000;
}

/**
 * Checks one request's permits (an integer >= 0) and timeout (seconds or a duration), and
 * returns it in the units the algorithm works in. A timeout of Infinity waits as long as needed.
 */
export function rateLimitRequest(
  permits: number,
  timeout: Seconds,
  where = 'rateLimiter',
): RateLimitRequest {
  const timeoutSeconds = secondsOption(timeout, where, 'timeout') as number;
  checkPermits(permits, where);
  if (typeof timeoutSeconds !== 'number' || Number.isNaN(timeoutSeconds) || timeoutSeconds < 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'timeout', timeout, 'a number >= 0'),
    );
  }
  if (timeoutSeconds !== Infinity) timeAtMostMax(timeoutSeconds, where, 'timeout', timeout);
  return {
    permits,
    timeoutMicros: timeoutSeconds === Infinity ? -1 : timeoutSeconds * 1_000_000,
  };
}

/**
 * A decorator's static permits with no timeout: more than the bucket holds could never be
 * served, which fails start-up. The same request from a factory call or a `permits`
 * function is denied with `retryAfterMs` -1 instead.
 */
export function checkServable(
  params: RateLimitParams,
  request: RateLimitRequest,
  where: string,
): void {
  if (request.timeoutMicros === 0 && request.permits > params.maxPermits) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(
        where,
        'permits',
        request.permits,
        `at most ${params.sizedBy ?? 'rate * burst'} (${params.maxPermits}) when timeout is 0`,
      ),
    );
  }
}

/** The parameters as rate-limit.lua reads them, after the block, then their fingerprint. */
export function rateLimitArgv(params: RateLimitParams): string[] {
  return withFingerprint(params, ownArgv);
}

const ownArgv = (of: RateLimitParams): string[] =>
  [of.maxPermits, of.intervalMicros, of.initialPermits, of.expireMicros].map(exactString);
