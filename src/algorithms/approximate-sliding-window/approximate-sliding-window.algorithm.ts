import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { blockable } from '../state-ops/blockable';
import { approximateSlidingWindowStep } from './approximate-sliding-window.memory';
import {
  ApproximateSlidingWindowParams,
  ApproximateSlidingWindowRequest,
  ApproximateSlidingWindowState,
} from './approximate-sliding-window.model';

/** The approximate sliding window: Lua for Redis, {@link approximateSlidingWindowStep} in memory. */
export const approximateSlidingWindowCore: LimiterAlgorithm<
  ApproximateSlidingWindowParams,
  ApproximateSlidingWindowRequest,
  ApproximateSlidingWindowState
> = {
  commandName: 'limiterApproximateSlidingWindow',
  lua: loadLua(__dirname, 'approximate-sliding-window.lua'),
  paramsArgv: (params) => [String(params.limit), exactString(params.windowMicros)],
  requestArgv: (request) => [String(request.permits)],
  step: approximateSlidingWindowStep,
  limit: (params) => params.limit,
  // A denial ends only by time passing: other servers can only add to the counts.
  denialScope: (request) => String(request.permits),
};

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const approximateSlidingWindow = blockable(approximateSlidingWindowCore, 'string');
