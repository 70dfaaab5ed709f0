import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { fixedWindowCore } from './fixed-window.algorithm';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** Takes permits off a fixed window's count: fixed-window.refund.lua and its twin. */
export const fixedWindowRefund: LimiterAlgorithm<
  FixedWindowParams,
  RefundRequest,
  FixedWindowState
> = {
  commandName: 'limiterFixedWindowRefund',
  lua: loadLua(__dirname, 'fixed-window.refund.lua'),
  paramsArgv: fixedWindowCore.paramsArgv,
  step: (state, now, params, request) => {
    const done = [1, 0, 0, 0, 0] as const;
    if (!state) return { state, ttlMs: null, reply: done };
    const pttl = Math.round((state.windowEndMicros - now) / 1000);
    const expected = request.resetLeftMicros;
    if (
      expected !== undefined &&
      Math.abs(pttl - Math.round(expected) / 1000) * 2 >= params.periodMs
    ) {
      return { state, ttlMs: null, reply: done };
    }
    const left = state.count - request.permits;
    if (left <= 0) return { state: undefined, ttlMs: null, reply: done };
    const ttlMs = (state.windowEndMicros - now) / 1000;
    return { state: { ...state, count: left }, ttlMs, reply: done };
  },
  limit: fixedWindowCore.limit,
};
