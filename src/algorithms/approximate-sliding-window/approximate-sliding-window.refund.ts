import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { approximateSlidingWindowCore } from './approximate-sliding-window.algorithm';
import {
  ApproximateSlidingWindowParams,
  ApproximateSlidingWindowState,
} from './approximate-sliding-window.model';

/** Takes permits off the acquire's window: approximate-sliding-window.refund.lua and its twin. */
export const approximateSlidingWindowRefund: LimiterAlgorithm<
  ApproximateSlidingWindowParams,
  RefundRequest,
  ApproximateSlidingWindowState
> = {
  commandName: 'limiterApproximateSlidingWindowRefund',
  lua: loadLua(__dirname, 'approximate-sliding-window.refund.lua'),
  paramsArgv: approximateSlidingWindowCore.paramsArgv,
  step: (state, now, params, request, expiresAt) => {
    const done = [1, 0, 0, 0, 0] as const;
    if (!state) return { state, ttlMs: null, reply: done };
    const window = params.windowMicros;
    const left = request.resetLeftMicros;
    const index =
      left === undefined
        ? Math.floor(now / window)
        : Math.floor((now + Math.round(left)) / window + 0.5) - 2;
    let { curr, prev } = state;
    if (index === state.index) curr = Math.max(0, curr - request.permits);
    else if (index === state.index - 1) prev = Math.max(0, prev - request.permits);
    else return { state, ttlMs: null, reply: done };
    if (curr === 0 && prev === 0) return { state: undefined, ttlMs: null, reply: done };
    return {
      state: { index: state.index, curr, prev },
      ttlMs: (expiresAt! - now) / 1000,
      reply: done,
    };
  },
  limit: approximateSlidingWindowCore.limit,
};
