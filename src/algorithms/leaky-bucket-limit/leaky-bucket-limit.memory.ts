import { AdjustmentStep } from '../state-ops/state-ops.model';
import { NEVER_MICROS, RawReply } from '../../contracts/decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { permitsOf, PermitsRequest } from '../permits';
import {
  leakyBucketFingerprint,
  LeakyBucketLimitParams,
  LeakyBucketLimitState,
} from './leaky-bucket-limit.model';

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
  const fingerprint = leakyBucketFingerprint(params);
  let tat = state ? Math.max(now, state.tatMicros) : now;
  // Written under other options, a tat beyond tau is cut to it (and written: the Lua's SET).
  const cut = state !== undefined && state.fingerprint !== fingerprint && tat > now + tolerance;
  if (cut) tat = now + tolerance;
  const remainingAt = (reset: number) => Math.max(0, Math.floor((tolerance - reset) / interval));
  const unchanged = (reply: RawReply): MemoryStep<LeakyBucketLimitState> =>
    cut
      ? { state: { tatMicros: tat, fingerprint }, ttlMs: ttlMsFromMicros(tolerance), reply }
      : { state, ttlMs: null, reply };

  if (permits > capacity) {
    return unchanged([0, remainingAt(tat - now), tat - now, NEVER_MICROS, 0]);
  }
  // A request of 0 passes only where one of 1 would (it takes nothing).
  const newTat = tat + Math.max(permits, 1) * interval;
  const allowAt = newTat - tolerance;
  if (now < allowAt) {
    return unchanged([0, remainingAt(tat - now), tat - now, allowAt - now, 0]);
  }
  if (permits === 0) {
    return unchanged([1, remainingAt(tat - now), tat - now, 0, 0]);
  }

  const reset = newTat - now;
  return {
    state: { tatMicros: newTat, fingerprint },
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
  return { state: { ...state, tatMicros: tat }, ttlMs: ttlMsFromMicros(tat - now), reply: done };
};

/** The twin of leaky-bucket-limit.charge.lua. */
export const leakyBucketLimitChargeStep: Adjustment = (state, now, params, request) => {
  const { intervalMicros: interval } = params;
  const fingerprint = leakyBucketFingerprint(params);
  let from = state ? Math.max(now, state.tatMicros) : now;
  // Written under other options: cut first, as the acquire cuts it.
  if (state && state.fingerprint !== fingerprint) {
    from = Math.min(from, now + interval * params.capacity);
  }
  const tat = from + request.permits * interval;
  return {
    state: { tatMicros: tat, fingerprint },
    ttlMs: ttlMsFromMicros(tat - now),
    reply: [1, 0, 0, 0, 0],
  };
};
