import { AdjustmentStep } from '../state-ops/state-ops.model';
import { NEVER_MICROS } from '../../contracts/decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { permitsOf, PermitsRequest } from '../permits';
import { LeakyBucketLimitParams, LeakyBucketLimitState } from './leaky-bucket-limit.model';

/** A refund's or a charge's twin on this algorithm's state. */
type Adjustment = AdjustmentStep<LeakyBucketLimitParams, LeakyBucketLimitState>;

/** The TypeScript twin of leaky-bucket-limit.lua: same operations in the same order. */
export function leakyBucketLimitStep(
  state: LeakyBucketLimitState | undefined,
  now: number,
  params: LeakyBucketLimitParams,
  request: PermitsRequest | undefined,
): MemoryStep<LeakyBucketLimitState> {
  const { capacity, intervalMicros: interval } = params;
  const permits = permitsOf(request);
  const tolerance = interval * capacity;
  const tat = state ? Math.max(now, state.tatMicros) : now;
  const remainingAt = (reset: number) => Math.max(0, Math.floor((tolerance - reset) / interval));

  if (permits > capacity) {
    return { state, ttlMs: null, reply: [0, remainingAt(tat - now), tat - now, NEVER_MICROS, 0] };
  }
  // A request of 0 passes only where one of 1 would (it takes nothing).
  const newTat = tat + Math.max(permits, 1) * interval;
  const allowAt = newTat - tolerance;
  if (now < allowAt) {
    return { state, ttlMs: null, reply: [0, remainingAt(tat - now), tat - now, allowAt - now, 0] };
  }
  if (permits === 0) {
    return { state, ttlMs: null, reply: [1, remainingAt(tat - now), tat - now, 0, 0] };
  }

  const reset = newTat - now;
  return {
    state: { tatMicros: newTat },
    ttlMs: ttlMsFromMicros(reset),
    reply: [1, remainingAt(reset), reset, 0, 0],
  };
}

/** The twin of leaky-bucket-limit.refund.lua. */
export const leakyBucketLimitRefundStep: Adjustment = (state, now, params, request) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!state) return { state, ttlMs: null, reply: done };
  const tat = Math.max(now, state.tatMicros - request.permits * params.intervalMicros);
  if (tat <= now) return { state: undefined, ttlMs: null, reply: done };
  return { state: { tatMicros: tat }, ttlMs: ttlMsFromMicros(tat - now), reply: done };
};

/** The twin of leaky-bucket-limit.charge.lua. */
export const leakyBucketLimitChargeStep: Adjustment = (state, now, params, request) => {
  const from = state ? Math.max(now, state.tatMicros) : now;
  const tat = from + request.permits * params.intervalMicros;
  return {
    state: { tatMicros: tat },
    ttlMs: ttlMsFromMicros(tat - now),
    reply: [1, 0, 0, 0, 0],
  };
};
