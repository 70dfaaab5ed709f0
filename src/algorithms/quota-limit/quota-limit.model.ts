/*
 * How a quota decides
 * ===================
 *
 * A quota allows `limit` permits per calendar cycle (the cycles' rules: calendar/calendar-cycle.ts)
 * on one key. The key holds the current cycle's state as one short string, `<cycle start ms in
 * base 36>:<used>[:<credit>][s]` (`s` once the soft limit is reached), expiring when the cycle
 * ends; a state of another cycle reads as none, so a cycle starts at 0 without any write at its
 * boundary. The cycle is the one Redis's clock (the
 * memory store's clock) is in: the app sends the starts of the previous, current and next
 * cycles around its own clock, and the script takes the one its `now` falls in, so two servers
 * whose clocks differ never charge one request to different cycles. Time zones live in the
 * app (`Intl`), never in Lua.
 *
 * A request of `permits` is allowed while used + permits <= limit + credit; then `used` grows
 * by its permits; a denial takes nothing. `credit(n)` adds n to this cycle's allowance only.
 * A request of 0 (`usage()`) decides as one of 1 would and writes nothing. A denial's retry is
 * the next cycle's start, or never (-1) for a request above `limit`, which no cycle can hold
 * without a credit.
 *
 * Idempotency: a request with an `idempotencyKey` already charged in this cycle is charged
 * nothing and answered as the first was (allowed, with the `used` and `remaining` the first
 * left). The key is remembered beside the state, in its hash slot (`{<key>}:<start>:<id>`,
 * or the key's own hash tag), until the cycle ends or `idempotencyWindow` passes, whichever is
 * first. Only charged requests are remembered: a denied one may be tried again.
 *
 * Soft limit: the request that first brings `used` to `softLimit` or above in a cycle sets the
 * state's flag and is told so, once per cycle and key, whichever server sends it: the guard and
 * the factory report it as the `'quota-soft-limit'` event.
 *
 * The reply's fifth value, a wait for the other algorithms, is `used * 4 + flags` (1: this
 * request reached the soft limit, 2: it repeated a charged idempotency key); the definition
 * reads it into the decision's `quota` and leaves no wait.
 */
import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import { CycleNeighbourhood, cycleNeighbourhoodAt, CycleRule } from '../../calendar/calendar-cycle';
import { cycleRuleOf } from '../../calendar/cycle-rule';
import { integerAtLeastOne, secondsOption, timeInRange } from '../option-rules';
import { Seconds } from '../duration';

/** Options of a calendar quota, as `@QuotaLimit` and `factory.quota` take them. */
export interface QuotaLimiterOptions {
  /** Permits allowed per cycle: an integer >= 1. */
  limit: number;
  /** The cycle: a day, a week, a month or a year of the calendar in `timeZone`. */
  cycle: 'day' | 'week' | 'month' | 'year';
  /** An IANA time zone ('Europe/Paris'); default 'UTC'. */
  timeZone?: string;
  /**
   * Where cycles start: a day of the month (1-31, the month's last day where it has fewer;
   * 'month' only) or an ISO date-time whose wall-clock time and date repeat every cycle
   * ('2026-01-31T09:30'). Default: midnight of the cycle's first day.
   */
  anchor?: number | string;
  /** The first day of a week cycle without an anchor: ISO weekday 1 (Monday, default) to 7. */
  weekStart?: number;
  /**
   * Usage at which the `'quota-soft-limit'` event fires, once per cycle: a fraction of `limit`
   * (below 1: 0.8 is 80 %) or a count (an integer from 1 to `limit`).
   */
  softLimit?: number;
  /** How long an idempotency key is remembered at most (within its cycle): default 24 h. */
  idempotencyWindow?: Seconds;
}

export interface QuotaLimitParams {
  limit: number;
  /** The usage that fires the soft limit; 0 for none. */
  softLimit: number;
  idempotencyWindowMs: number;
  rule: CycleRule;
  /** The last cycles found for this rule, so that most decisions compute none. */
  cycles: { around?: CycleNeighbourhood };
}

export interface QuotaLimitState {
  cycleStartMs: number;
  used: number;
  credit: number;
  softReached: boolean;
}

/** One quota request: its permits, or a credit; its idempotency key; the cycles around now. */
export interface QuotaRequest {
  permits: number;
  credit?: number;
  idempotencyKey?: string;
  /** Where the app's clock puts the cycles; the store takes the one of its own clock. */
  cycles: CycleNeighbourhood;
}

/** The reply's flags (the fifth value's two low bits). */
export const SOFT_LIMIT_REACHED = 1;
export const REPEATED = 2;

const DEFAULT_IDEMPOTENCY_WINDOW_SECONDS = 86_400;

export function quotaLimitParams(
  options: QuotaLimiterOptions & Record<string, unknown>,
  where = 'quota',
): QuotaLimitParams {
  const limit = integerAtLeastOne(options.limit, where, 'limit');
  for (const unsupported of ['block', 'count'] as const) {
    if (options[unsupported] !== undefined) {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(
          where,
          unsupported,
          options[unsupported],
          'absent on a quota',
        ),
      );
    }
  }
  const rule = cycleRuleOf(options, where);
  const given = options.idempotencyWindow ?? DEFAULT_IDEMPOTENCY_WINDOW_SECONDS;
  const window = timeInRange(
    secondsOption(given, where, 'idempotencyWindow'),
    where,
    'idempotencyWindow',
    given,
  );
  return {
    limit,
    softLimit: softLimitOf(options.softLimit, limit, where),
    idempotencyWindowMs: Math.max(1, Math.ceil(window * 1000)),
    rule,
    cycles: sharedCycles(rule),
  };
}

/**
 * One cache of found cycles per rule, shared by the params made for every request (a limit
 * whose time zone or idempotency key comes from the request): a rule's cycles are found once
 * per cycle, not once per request. Bounded: the oldest rule goes first.
 */
const cyclesByRule = new Map<string, { around?: CycleNeighbourhood }>();
const MAX_RULES = 10_000;

function sharedCycles(rule: CycleRule): { around?: CycleNeighbourhood } {
  const { unit, timeZone, anchor } = rule;
  const id = [unit, timeZone, anchor.month, anchor.day, anchor.weekday, anchor.timeOfDayMs].join();
  let cycles = cyclesByRule.get(id);
  if (!cycles) {
    if (cyclesByRule.size >= MAX_RULES) cyclesByRule.delete(cyclesByRule.keys().next().value!);
    cyclesByRule.set(id, (cycles = {}));
  }
  return cycles;
}

function softLimitOf(value: unknown, limit: number, where: string): number {
  if (value === undefined) return 0;
  const expected = `a fraction of the limit (above 0, below 1) or a count from 1 to the limit (${limit})`;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'softLimit', value, expected),
    );
  }
  if (value < 1) return Math.max(1, Math.ceil(value * limit));
  if (!Number.isInteger(value) || value > limit) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'softLimit', value, expected),
    );
  }
  return value;
}

/** The cycles around `nowMs`, from the params' last ones while `nowMs` is in their cycle. */
export function cyclesAround(params: QuotaLimitParams, nowMs: number): CycleNeighbourhood {
  const known = params.cycles.around;
  if (known && known.startMs <= nowMs && nowMs < known.endMs) return known;
  return (params.cycles.around = cycleNeighbourhoodAt(params.rule, nowMs));
}

/** The parameters as quota-limit.lua reads them, after the block: its `argv`. */
export function quotaLimitArgv(params: QuotaLimitParams): string[] {
  return [String(params.limit), String(params.softLimit), String(params.idempotencyWindowMs)];
}

/** The request's values as quota-limit.lua reads them, after the parameters. */
export function quotaRequestArgv(request: QuotaRequest): string[] {
  const { cycles } = request;
  return [
    String(request.permits),
    String(cycles.previousStartMs),
    String(cycles.startMs),
    String(cycles.endMs),
    String(cycles.nextEndMs),
    String(request.credit ?? 0),
    request.idempotencyKey ?? '',
  ];
}
