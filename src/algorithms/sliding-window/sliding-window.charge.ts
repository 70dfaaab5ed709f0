import { exactString, LimiterAlgorithm, ttlMsFromMicros } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { weightedMember } from '../permits';
import { RefundRequest } from '../state-ops/state-ops.model';
import { slidingWindowCore } from './sliding-window.algorithm';
import { SlidingWindowParams, SlidingWindowState } from './sliding-window.model';

/** Logs a weighted member now, into debt if need be: sliding-window.charge.lua and its twin. */
export const slidingWindowCharge: LimiterAlgorithm<
  SlidingWindowParams,
  RefundRequest,
  SlidingWindowState
> = {
  commandName: 'limiterSlidingWindowCharge',
  lua: loadLua(__dirname, 'sliding-window.charge.lua'),
  paramsArgv: slidingWindowCore.paramsArgv,
  step: (state, now, params, request) => {
    const id = request.id ? `${request.id}+` : `charge:${exactString(now)}`;
    const member = weightedMember(id, request.permits);
    const times: number[] = [];
    const ids: string[] = [];
    state?.timesMicros.forEach((t, i) => {
      // Expired members go, as ZREMRANGEBYSCORE drops them; the same member is moved (ZADD).
      if (t > now - params.windowMicros && state.ids[i] !== member) {
        times.push(t);
        ids.push(state.ids[i]);
      }
    });
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
  },
  limit: slidingWindowCore.limit,
};
