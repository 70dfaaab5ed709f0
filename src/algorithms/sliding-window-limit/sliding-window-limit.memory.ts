import { NEVER_MICROS } from '../../contracts/decision';
import { exactString, MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import { memberId, memberWeight, permitsOf, weightedMember } from '../permits';
import { AdjustmentStep } from '../state-ops/state-ops.model';
import {
  SlidingWindowLimitParams,
  SlidingWindowLimitRequest,
  SlidingWindowLimitState,
} from './sliding-window-limit.model';

/** A refund's or a charge's twin on this algorithm's state. */
type Adjustment = AdjustmentStep<SlidingWindowLimitParams, SlidingWindowLimitState>;

/**
 * The TypeScript twin of sliding-window-limit.lua on a sorted array of times, with each
 * request's member (its id, and its weight above 1) beside its time: a refund removes its own.
 */
export function slidingWindowLimitStep(
  state: SlidingWindowLimitState | undefined,
  now: number,
  params: SlidingWindowLimitParams,
  request: SlidingWindowLimitRequest,
): MemoryStep<SlidingWindowLimitState> {
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
  // A request of 0 passes only where one of 1 would (it takes nothing).
  const need = Math.max(permits, 1);
  if (count + need <= limit) {
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
  while (count - (freed += memberWeight(ids[at])) + need > limit) at++;
  return { state, ttlMs: null, reply: [0, remaining, reset, times[at] + window - now, 0] };
}

/** The twin of sliding-window-limit.refund.lua. */
export const slidingWindowLimitRefundStep: Adjustment = (
  state,
  now,
  params,
  request,
  expiresAt,
) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!state) return { state, ttlMs: null, reply: done };
  const removed = new Set<number>();
  const ids = [...state.ids];
  let changed = false;
  if (request.id !== undefined) {
    // The acquire's own member, found by its id: refunded whole or in part.
    const at = ids.findIndex((member) => memberId(member) === request.id);
    const weight = at < 0 ? 0 : memberWeight(ids[at]);
    if (weight > request.permits) {
      ids[at] = weightedMember(request.id, weight - request.permits);
      changed = true;
    } else if (at >= 0) removed.add(at);
  } else {
    // The newest first, by time then member, as ZREVRANGEBYSCORE orders them.
    const order = state.timesMicros
      .map((_, i) => i)
      .filter(
        (i) => state.timesMicros[i] <= now && state.timesMicros[i] > now - params.windowMicros,
      )
      .sort((a, b) => compare(state, b, a));
    let left = request.permits;
    for (const i of order) {
      if (left === 0) break;
      const weight = memberWeight(ids[i]);
      if (weight > left) {
        // Refunded in part: the rest of its weight stays, at its time.
        ids[i] = weightedMember(memberId(ids[i]), weight - left);
        changed = true;
        left = 0;
      } else {
        removed.add(i);
        left -= weight;
      }
    }
  }
  if (removed.size === 0 && !changed) return { state, ttlMs: null, reply: done };
  const keep = (_: unknown, i: number) => !removed.has(i);
  const next = { timesMicros: state.timesMicros.filter(keep), ids: ids.filter(keep) };
  if (next.ids.length === 0) return { state: undefined, ttlMs: null, reply: done };
  return { state: next, ttlMs: (expiresAt! - now) / 1000, reply: done };
};

/** The twin of sliding-window-limit.charge.lua. */
export const slidingWindowLimitChargeStep: Adjustment = (state, now, params, request) => {
  const id = request.id ? `${request.id}+` : `charge:${exactString(now)}`;
  let weight = request.permits;
  const times: number[] = [];
  const ids: string[] = [];
  state?.timesMicros.forEach((t, i) => {
    // Expired members go, as ZREMRANGEBYSCORE drops them; a live one of the same id adds its
    // weight to this charge's (one member per id, as the Lua keeps it).
    if (t <= now - params.windowMicros) return;
    if (memberId(state.ids[i]) === id) {
      weight += memberWeight(state.ids[i]);
      return;
    }
    times.push(t);
    ids.push(state.ids[i]);
  });
  const member = weightedMember(id, weight);
  // Sorted insert: an injected or wall clock may step back; Redis sorts by score too.
  let at = times.length;
  while (at > 0 && times[at - 1] > now) at--;
  times.splice(at, 0, now);
  ids.splice(at, 0, member);
  return {
    state: { timesMicros: times, ids },
    ttlMs: ttlMsFromMicros(params.windowMicros),
    reply: [1, 0, 0, 0, 0],
  };
};

/** The log's members in order: by time, then by member, as a zset sorts them. */
function compare(state: SlidingWindowLimitState, a: number, b: number): number {
  const byTime = state.timesMicros[a] - state.timesMicros[b];
  if (byTime !== 0) return byTime;
  return state.ids[a] < state.ids[b] ? -1 : state.ids[a] > state.ids[b] ? 1 : 0;
}
