import { NEVER_MICROS } from '../decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { memberWeight, permitsOf, weightedMember } from '../permits';
import {
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState,
} from './sliding-window.model';

/**
 * The TypeScript twin of sliding-window.lua on a sorted array of times, with each
 * request's member (its id, and its weight above 1) beside its time: a refund removes its own.
 */
export function slidingWindowStep(
  state: SlidingWindowState | undefined,
  now: number,
  params: SlidingWindowParams,
  request: SlidingWindowRequest,
): MemoryStep<SlidingWindowState> {
  const { limit, windowMicros: window } = params;
  const permits = permitsOf(request);
  const times: number[] = [];
  const ids: string[] = [];
  let count = 0;
  if (state) {
    state.timesMicros.forEach((t, i) => {
      if (t > now - window) {
        times.push(t);
        ids.push(state.ids[i]);
        count += memberWeight(state.ids[i]);
      }
    });
  }
  const remaining = Math.max(0, limit - count);
  const reset = times.length > 0 ? times[times.length - 1] + window - now : 0;

  // Redis also drops the expired members on a denial; keeping them changes no later
  // decision, since the next request drops them first, and it leaves the TTL as the script does.
  if (permits > limit) return { state, ttlMs: null, reply: [0, remaining, reset, NEVER_MICROS, 0] };
  if (count + permits <= limit) {
    if (permits === 0) return { state, ttlMs: null, reply: [1, remaining, reset, 0, 0] };
    // Sorted insert: an injected or wall clock may step back; Redis sorts by score too.
    let at = times.length;
    while (at > 0 && times[at - 1] > now) at--;
    times.splice(at, 0, now);
    ids.splice(at, 0, weightedMember(request.id, permits));
    return {
      state: { timesMicros: times, ids },
      ttlMs: ttlMsFromMicros(window),
      reply: [1, limit - count - permits, window, 0, 0],
    };
  }

  let freed = 0;
  let at = 0;
  while (count - (freed += memberWeight(ids[at])) + permits > limit) at++;
  return { state, ttlMs: null, reply: [0, remaining, reset, times[at] + window - now, 0] };
}
