import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { memberId, memberWeight, weightedMember } from '../permits';
import { RefundRequest } from '../state-ops/state-ops.model';
import { slidingWindowCore } from './sliding-window.algorithm';
import { SlidingWindowParams, SlidingWindowState } from './sliding-window.model';

/** Removes requests from a sliding-window log: sliding-window.refund.lua and its twin. */
export const slidingWindowRefund: LimiterAlgorithm<
  SlidingWindowParams,
  RefundRequest,
  SlidingWindowState
> = {
  commandName: 'limiterSlidingWindowRefund',
  lua: loadLua(__dirname, 'sliding-window.refund.lua'),
  paramsArgv: slidingWindowCore.paramsArgv,
  step: (state, now, params, request, expiresAt) => {
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
  },
  limit: slidingWindowCore.limit,
};

function compare(state: SlidingWindowState, a: number, b: number): number {
  const byTime = state.timesMicros[a] - state.timesMicros[b];
  if (byTime !== 0) return byTime;
  return state.ids[a] < state.ids[b] ? -1 : state.ids[a] > state.ids[b] ? 1 : 0;
}
