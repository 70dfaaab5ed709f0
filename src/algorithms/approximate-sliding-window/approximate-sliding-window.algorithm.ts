import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { approximateSlidingWindowStep } from './approximate-sliding-window.memory';
import {
  ApproximateSlidingWindowParams,
  ApproximateSlidingWindowRequest,
  ApproximateSlidingWindowState,
} from './approximate-sliding-window.model';

/** The approximate sliding window: Lua for Redis, {@link approximateSlidingWindowStep} in memory. */
export const approximateSlidingWindow: LimiterAlgorithm<
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
