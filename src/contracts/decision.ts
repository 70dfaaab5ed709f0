/**
 * The outcome of one limiter decision, in milliseconds.
 *
 * @publicApi
 */
export interface Decision {
  /** Whether the request may proceed (after waiting `waitMs`, for a token bucket). */
  allowed: boolean;
  /** The most permits or requests the limit allows at once. */
  limit: number;
  /**
   * Permits or requests still available right after this decision (a denial takes nothing,
   * so it reports what is available now: a request of 4 may be denied with 2 remaining).
   */
  remaining: number;
  /** Milliseconds until the limit is fully restored if nothing else happens. */
  resetMs: number;
  /**
   * When denied: milliseconds until the same request could be allowed; 0 when allowed.
   * `-1` when it can never be allowed: it costs more permits than the limit holds (as
   * redis-cell answers a quantity above its burst). Nothing was written, and waiting won't help.
   */
  retryAfterMs: number;
  /** When allowed: milliseconds the caller must wait before its permits exist; 0 otherwise. */
  waitMs: number;
  /** Set on a calendar quota's decision (`@QuotaLimit`, `factory.quota`). */
  quota?: QuotaFacts;
}

/**
 * What a calendar quota's decision tells besides the usual fields.
 *
 * @publicApi
 */
export interface QuotaFacts {
  /** Permits used in the cycle after this decision (a denial takes nothing). */
  used: number;
  /** This decision brought usage to the soft limit: once per cycle and key, fleet-wide. */
  softLimitReached: boolean;
  /** Its idempotency key was charged already this cycle: answered as the first was, charged nothing. */
  repeated: boolean;
}

/**
 * What every Lua script and every memory twin returns, in microseconds:
 * `[allowed (0|1), remaining, resetMicros, retryAfterMicros, waitMicros]`; a negative
 * retryAfterMicros says the request can never be allowed ({@link NEVER_MICROS}).
 * Both stores produce this exact tuple for the same inputs, which is what the
 * property tests compare.
 */
export type RawReply = readonly [
  allowed: number,
  remaining: number,
  resetMicros: number,
  retryAfterMicros: number,
  waitMicros: number,
];

/** The retryAfterMicros of a request that costs more than the limit: it can never pass. */
export const NEVER_MICROS = -1;

export function toDecision(reply: RawReply, limit: number): Decision {
  const [allowed, remaining, resetMicros, retryAfterMicros, waitMicros] = reply;
  return {
    allowed: allowed === 1,
    limit,
    remaining: Math.max(0, Math.floor(remaining)),
    resetMs: resetMicros / 1000,
    retryAfterMs: retryAfterMicros < 0 ? -1 : retryAfterMicros / 1000,
    waitMs: waitMicros / 1000,
  };
}
