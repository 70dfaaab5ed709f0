import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import {
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState,
} from './sliding-window.model';

/**
 * The TypeScript twin of sliding-window.lua on a sorted array of times, with each
 * request's id beside its time (a refund removes its own).
 */
export function slidingWindowStep(
  state: SlidingWindowState | undefined,
  now: number,
  params: SlidingWindowParams,
  request: SlidingWindowRequest,
): MemoryStep<SlidingWindowState> {
  const { limit, windowMicros: window } = params;
  const times: number[] = [];
  const ids: string[] = [];
  if (state) {
    state.timesMicros.forEach((t, i) => {
      if (t > now - window) {
        times.push(t);
        ids.push(state.ids[i]);
      }
    });
  }
  const count = times.length;

  if (count < limit) {
    // Sorted insert: an injected or wall clock may step back; Redis sorts by score too.
    let at = count;
    while (at > 0 && times[at - 1] > now) at--;
    times.splice(at, 0, now);
    ids.splice(at, 0, request.id);
    return {
      state: { timesMicros: times, ids },
      ttlMs: ttlMsFromMicros(window),
      reply: [1, limit - count - 1, window, 0, 0],
    };
  }

  // Redis also drops the expired members here; keeping them changes no later decision,
  // since the next request drops them first, and it leaves the TTL as the script does.
  const retryAfter = times[count - limit] + window - now;
  const reset = times[count - 1] + window - now;
  return { state, ttlMs: null, reply: [0, 0, reset, retryAfter, 0] };
}
