import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { slidingWindowStep } from './sliding-window.memory';
import {
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState,
} from './sliding-window.model';

/** The sliding-window log (`@SlidingWindowLimit`): Lua for Redis, {@link slidingWindowStep} in memory. */
export const slidingWindow: LimiterAlgorithm<
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState
> = {
  commandName: 'limiterSlidingWindow',
  lua: loadLua(__dirname, 'sliding-window.lua'),
  paramsArgv: (params) => [String(params.limit), exactString(params.windowMicros)],
  requestArgv: (request) => [request.id],
  step: (state, now, params) => slidingWindowStep(state, now, params),
  limit: (params) => params.limit,
  denialScope: () => '',
};
