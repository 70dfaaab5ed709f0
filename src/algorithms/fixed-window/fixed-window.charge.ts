import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { fixedWindowCore } from './fixed-window.algorithm';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** Adds permits to a fixed window's count, into debt if need be: fixed-window.charge.lua and its twin. */
export const fixedWindowCharge: LimiterAlgorithm<
  FixedWindowParams,
  RefundRequest,
  FixedWindowState
> = {
  commandName: 'limiterFixedWindowCharge',
  lua: loadLua(__dirname, 'fixed-window.charge.lua'),
  paramsArgv: fixedWindowCore.paramsArgv,
  step: (state, now, params, request) => {
    const done = [1, 0, 0, 0, 0] as const;
    if (!state) {
      const windowEndMicros = now + params.periodMs * 1000;
      return {
        state: { count: request.permits, windowEndMicros },
        ttlMs: params.periodMs,
        reply: done,
      };
    }
    const count = state.count + request.permits;
    const ttlMs = (state.windowEndMicros - now) / 1000;
    return { state: { ...state, count }, ttlMs, reply: done };
  },
  limit: fixedWindowCore.limit,
};
