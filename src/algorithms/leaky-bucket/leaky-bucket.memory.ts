import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { LeakyBucketParams, LeakyBucketState } from './leaky-bucket.model';

/** The TypeScript twin of leaky-bucket.lua: same operations in the same order. */
export function leakyBucketStep(
  state: LeakyBucketState | undefined,
  now: number,
  params: LeakyBucketParams,
): MemoryStep<LeakyBucketState> {
  const { capacity, intervalMicros: interval } = params;
  const tolerance = interval * capacity;
  const tat = state ? Math.max(now, state.tatMicros) : now;
  const newTat = tat + interval;
  const allowAt = newTat - tolerance;

  if (now < allowAt) {
    return { state, ttlMs: null, reply: [0, 0, tat - now, allowAt - now, 0] };
  }

  const reset = newTat - now;
  const remaining = Math.floor((tolerance - reset) / interval);
  return {
    state: { tatMicros: newTat },
    ttlMs: ttlMsFromMicros(reset),
    reply: [1, remaining, reset, 0, 0],
  };
}
