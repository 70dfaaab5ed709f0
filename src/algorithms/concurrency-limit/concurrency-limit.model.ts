/*
 * How the concurrency limit decides, and why
 * ==========================================
 *
 * The naive limit is a counter: INCR on entry, allowed while <= max, DECR on exit. Its
 * flaw is the process that never exits: a crashed or partitioned app server never
 * decrements, and every slot it held is lost for good, until someone resets the key.
 *
 * We keep the in-flight requests themselves, each with a lease: one sorted set per key,
 * member = the request's id, score = the moment (µs) its lease expires. A request may hold
 * several slots at once (`permits`): its member carries how many (`<id>\0<n>` above 1), and
 * they are taken and given back together.
 *
 *   acquire(id, n): drop every score <= now                 (ZREMRANGEBYSCORE -inf now)
 *                   n > max: denied, can never pass (retryAfter -1)
 *                   id already in flight with n: renew its lease, allowed (it holds its slots)
 *                   held + n <= max: add id with score now + lease (n = 0 peeks: needs a
 *                   free slot, as n = 1, and adds nothing; the guard takes at least 1)
 *                   otherwise: denied, nothing added
 *   release(id, n): remove id's member (ZREM), allowed; releasing an absent id changes nothing
 *
 * held is the sum of the slots of every member, O(max) to read. remaining = max - held
 * after the decision; reset = time until the last lease expires (then every slot is free
 * even if nobody releases). A denied request gets retryAfter = time until enough leases
 * expire, earliest first (for one slot at held == max, the earliest). That is an upper
 * bound: slots are normally freed sooner, by release, when handlers complete.
 *
 * Example, max 2, lease 60 s:
 *
 *   t=0   acquire A -> allowed, {A:60}        remaining 1
 *   t=1   acquire B -> allowed, {A:60, B:61}  remaining 0
 *   t=2   acquire C -> denied, retryAfter 58 s (A's lease), reset 59 s
 *   t=3   release A -> {B:61}                 remaining 1
 *   t=4   acquire C -> allowed, {B:61, C:64}  remaining 0
 *   (the server running B crashes: B's slot is free again at t=61 all the same)
 *
 * The lease must exceed the longest handler: a lease that expires while its handler still
 * runs lets one more request in. Ids are made in TypeScript (`crypto.randomUUID()`), so
 * two servers never share one.
 *
 * TTL: once the last lease has expired the set decides nothing, so after every write the
 * key expires when its last lease does: `lease` after an acquire, unchanged by a release
 * (ZREM leaves the TTL, and the last lease still ends then). Redis deletes a set that a
 * release empties, so an idle limit leaves no key. A denial writes nothing but the
 * expired members it drops. Invariants: 0 <= in-flight <= max after an allowed acquire;
 * retryAfter > 0 when denied.
 */
import { integerAtLeastOne, secondsOption, timeInRange } from '../option-rules';
import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import { Seconds } from '../duration';
import { Decision } from '../../contracts/decision';
import { checkPermits } from '../permits';

/** Options of a concurrency limit, as `@ConcurrencyLimit` and `factory.concurrencyLimiter` take them. */
export interface ConcurrencyLimiterOptions {
  /** Requests in flight at once: an integer >= 1. */
  max: number;
  /**
   * How long a slot is held at most when it is never released (a crashed server): seconds
   * or a duration such as '30s', > 0. Default 60.
   */
  lease?: Seconds;
}

export interface ConcurrencyLimitParams {
  max: number;
  /** Whole microseconds, at least 1. */
  leaseMicros: number;
}

type ConcurrencyLimitOp = 'acquire' | 'release';

/** One request: take or give back the slots of `id`: `permits` of them (default 1), together. */
export interface ConcurrencyLimitRequest {
  op: ConcurrencyLimitOp;
  id: string;
  permits?: number;
}

/** The memory twin's in-flight requests: id -> lease expiry in µs. */
export interface ConcurrencyLimitState {
  leases: ReadonlyMap<string, number>;
  /** The end of a block set by the factory's `block(seconds)`, in µs. */
  blockedUntilMicros?: number;
}

const CONCURRENCY_LIMIT_DEFAULTS = { lease: 60 } as const;

export function concurrencyLimitParams(
  options: ConcurrencyLimiterOptions,
  where = 'concurrencyLimiter',
): ConcurrencyLimitParams {
  const { max } = options;
  const given = options.lease ?? CONCURRENCY_LIMIT_DEFAULTS.lease;
  const seconds = secondsOption(given, where, 'lease');
  integerAtLeastOne(max, where, 'max');
  const lease = timeInRange(seconds, where, 'lease', given);
  return { max, leaseMicros: Math.max(1, Math.round(lease * 1_000_000)) };
}

/**
 * Checks a request's id (a non-empty string without NUL: it becomes a zset member, NUL
 * separating the slots it holds) and its permits (an integer >= 0).
 */
export function concurrencyLimitRequest(
  op: ConcurrencyLimitOp,
  id: string,
  where = 'concurrencyLimiter',
  permits = 1,
): ConcurrencyLimitRequest {
  if (typeof id !== 'string' || id === '' || id.includes('\u0000')) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'id', id, 'a non-empty string without NUL'),
    );
  }
  return permits === 1 ? { op, id } : { op, id, permits: checkPermits(permits, where) };
}

/**
 * The slots held by one in-flight request. Give them back with {@link release} when the
 * work is done; slots never released (a crashed server) are freed when their lease ends.
 *
 * @publicApi
 */
export interface ConcurrencySlot {
  /** The request's id in the store. */
  readonly id: string;
  /** The decision that granted the slot. */
  readonly decision: Decision;
  /** Gives the slots back. Idempotent: a second call waits for the first and sends nothing. */
  release(): Promise<void>;
}
