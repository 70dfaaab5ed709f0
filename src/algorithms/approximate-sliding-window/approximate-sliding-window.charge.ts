import { LimiterAlgorithm, ttlMsFromMicros } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { approximateSlidingWindowCore } from './approximate-sliding-window.algorithm';
import {
  ApproximateSlidingWindowParams,
  ApproximateSlidingWindowState,
  rollForward,
} from './approximate-sliding-window.model';

/**
 * Adds permits to the current window's count, into debt if need be:
 * approximate-sliding-window.charge.lua and its twin.
 */
export const approximateSlidingWindowCharge: LimiterAlgorithm<
  ApproximateSlidingWindowParams,
  RefundRequest,
  ApproximateSlidingWindowState
> = {
  commandName: 'limiterApproximateSlidingWindowCharge',
  lua: loadLua(__dirname, 'approximate-sliding-window.charge.lua'),
  paramsArgv: approximateSlidingWindowCore.paramsArgv,
  step: (state, now, params, request) => {
    const window = params.windowMicros;
    const index = Math.floor(now / window);
    const { curr, prev } = rollForward(state, index);
    return {
      state: { index, curr: curr + request.permits, prev },
      ttlMs: ttlMsFromMicros((index + 2) * window - now),
      reply: [1, 0, 0, 0, 0],
    };
  },
  limit: approximateSlidingWindowCore.limit,
};
