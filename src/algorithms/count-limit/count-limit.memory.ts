import { NEVER_MICROS } from '../../contracts/decision';
import { MemoryStep } from '../limiter-algorithm';
import { permitsOf, PermitsRequest } from '../permits';
import { AdjustmentStep } from '../state-ops/state-ops.model';
import { CountLimitParams, CountLimitState } from './count-limit.model';

/** A refund's or a charge's twin on this algorithm's state. */
type Adjustment = AdjustmentStep<CountLimitParams, CountLimitState>;

/** The TypeScript twin of count-limit.lua; the memory store drops the state at window end. */
export function countLimitStep(
  found: CountLimitState | undefined,
  now: number,
  params: CountLimitParams,
  request: PermitsRequest | undefined,
): MemoryStep<CountLimitState> {
  const { limit, periodMs } = params;
  const permits = permitsOf(request);
  const state = withinPeriod(found, now, periodMs);
  // What the Lua writes even when it decides nothing: the cut TTL (its PEXPIRE).
  const kept = state === found ? null : periodMs;
  const count = state ? state.count : 0;
  // Whole milliseconds left, as PTTL reports them.
  const ttlMs = state ? Math.max(0, Math.round((state.windowEndMicros - now) / 1000)) : 0;
  const remaining = Math.max(0, limit - count);
  if (permits > limit) {
    return { state, ttlMs: kept, reply: [0, remaining, ttlMs * 1000, NEVER_MICROS, 0] };
  }
  // A request of 0 passes only where one of 1 would (it takes nothing).
  if (count + Math.max(permits, 1) > limit) {
    return { state, ttlMs: kept, reply: [0, remaining, ttlMs * 1000, ttlMs * 1000, 0] };
  }
  if (permits === 0) return { state, ttlMs: kept, reply: [1, remaining, ttlMs * 1000, 0, 0] };
  if (count === 0) {
    return {
      state: { count: permits, windowEndMicros: now + periodMs * 1000 },
      ttlMs: periodMs,
      reply: [1, limit - permits, periodMs * 1000, 0, 0],
    };
  }
  const windowEndMicros = state!.windowEndMicros;
  return {
    state: { count: count + permits, windowEndMicros },
    ttlMs: (windowEndMicros - now) / 1000,
    reply: [1, limit - count - permits, ttlMs * 1000, 0, 0],
  };
}

/** The twin of count-limit.refund.lua: takes permits off the acquire's window. */
export const countLimitRefundStep: Adjustment = (state, now, params, request) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!state) return { state, ttlMs: null, reply: done };
  const pttl = Math.round((state.windowEndMicros - now) / 1000);
  const { resetLeftMicros: expected, windowEndsAtMicros: endsAt } = request;
  const apartMs =
    endsAt !== undefined
      ? pttl - (Math.round(endsAt) - now) / 1000
      : expected !== undefined
        ? pttl - Math.round(expected) / 1000
        : 0;
  if (Math.abs(apartMs) * 2 >= params.periodMs) return { state, ttlMs: null, reply: done };
  const left = state.count - request.permits;
  if (left <= 0) return { state: undefined, ttlMs: null, reply: done };
  const ttlMs = (state.windowEndMicros - now) / 1000;
  return { state: { ...state, count: left }, ttlMs, reply: done };
};

/**
 * A window written under a longer period, cut to one period from now, as the Lua's PEXPIRE
 * cuts a PTTL above it: state never outlives the options it is decided with.
 */
function withinPeriod(
  state: CountLimitState | undefined,
  now: number,
  periodMs: number,
): CountLimitState | undefined {
  if (!state || Math.round((state.windowEndMicros - now) / 1000) <= periodMs) return state;
  return { count: state.count, windowEndMicros: now + periodMs * 1000 };
}

/** The twin of the counter's charge, its acquire without the limit: adds permits to the count, into debt if need be. */
export const countLimitChargeStep: Adjustment = (given, now, params, request) => ({
  ...countLimitStep(given, now, { ...params, limit: Infinity }, request),
  reply: [1, 0, 0, 0, 0],
});
