import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { MAX_COUNT, MAX_SECONDS } from './option-rules';

/**
 * What a request costs: the permits it takes, 1 unless said. `0` peeks: the
 * decision is made on the state as it is, and nothing is written. A cost above the limit
 * is denied without writing and can never pass (its `retryAfterMs` is -1).
 */
export interface PermitsRequest {
  permits?: number;
}

/** A peek's request: 0 permits decide on the state as it stands and write nothing. */
export const PEEK_PERMITS: PermitsRequest = Object.freeze({ permits: 0 });

/** The permits a request takes: its own, or 1 (a request given as undefined costs 1). */
export function permitsOf(request: PermitsRequest | undefined | void): number {
  return request?.permits ?? 1;
}

const NO_ARGS: readonly string[] = Object.freeze([]);

/**
 * A request's permits as the scripts read them: nothing for the usual 1 (the script reads
 * a missing value as 1), so a batch carries no argument per decision for it.
 */
export function permitsArgv(request: PermitsRequest | undefined | void): readonly string[] {
  const permits = permitsOf(request);
  return permits === 1 ? NO_ARGS : [String(permits)];
}

/** An integer >= 0, or a configuration error naming `where` and the value. */
export function checkPermits(permits: unknown, where: string): number {
  if (!Number.isInteger(permits) || (permits as number) < 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'permits', permits, 'an integer >= 0'),
    );
  }
  return permits as number;
}

/**
 * A decorator's static `permits` (default 1): an integer >= 0 that the limit can serve, or a
 * start-up error, since a cost above the limit could never pass. A function of the request
 * is checked per request instead (an invalid value answers 500; one above the limit, 429).
 */
export function staticPermits(value: unknown, limit: number, where: string): number {
  if (value === undefined || typeof value === 'function') return 1;
  const permits = checkPermits(value, where);
  if (permits > limit) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'permits', permits, `at most the limit (${limit})`),
    );
  }
  return permits;
}

/** Separates a member's id from its weight (ids never contain it). */
const WEIGHT_SEPARATOR = '\u0000';

/** The twin of the engine prelude's `weighted_member`: the id, then NUL and a weight above 1. */
export function weightedMember(id: string, weight: number): string {
  return weight === 1 ? id : `${id}${WEIGHT_SEPARATOR}${weight}`;
}

/** The twin of the engine prelude's `member_weight`. */
export function memberWeight(member: string): number {
  const at = member.lastIndexOf(WEIGHT_SEPARATOR);
  const weight = at < 0 ? '' : member.slice(at + 1);
  return /^\d+$/.test(weight) ? Number(weight) : 1;
}

/** The id of a member, without its weight. */
export function memberId(member: string): string {
  return memberWeight(member) === 1
    ? member
    : member.slice(0, member.lastIndexOf(WEIGHT_SEPARATOR));
}

const ONE: PermitsRequest = Object.freeze({ permits: 1 });

/** A checked request of `permits` for a factory limiter's call (the common 1 allocates nothing). */
export function permitsRequest(permits: unknown, where: string): PermitsRequest {
  return permits === 1 ? ONE : { permits: checkPermits(permits, where) };
}

/** A compiled limit's `newRequest` for algorithms whose request is its permits alone. */
export function permitsRequests(staticCost: number): (permits?: number) => PermitsRequest {
  const fixed: PermitsRequest = Object.freeze({ permits: staticCost });
  return (permits) => (permits === undefined ? fixed : { permits });
}

/**
 * The most one settle may charge a limit of `limit` over `windowSeconds` beyond what it
 * reserved: the debt it leaves is repaid within 3650 days at the limit's own pace (the
 * buckets' level in time stays in the engine's range) and is a count the engine keeps whole.
 * A larger settled cost is charged as this, on every store alike: such a key is denied for
 * years either way.
 */
export function maxCharge(limit: number, windowSeconds: number | undefined): number {
  // A window rounded to 0 µs (a bucket of under a µs) counts as 1 µs.
  const window = Math.max(windowSeconds ?? 0, 0.000_001);
  return Math.max(1, Math.min(MAX_COUNT, Math.floor((limit * MAX_SECONDS) / window)));
}
