import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { permitsArgv, permitsOf } from '../permits';
import { blockable } from '../state-ops/blockable';
import { slidingWindowStep } from './sliding-window.memory';
import {
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState,
} from './sliding-window.model';

/** The sliding-window log (`@SlidingWindowLimit`): Lua for Redis, {@link slidingWindowStep} in memory. */
export const slidingWindowCore: LimiterAlgorithm<
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState
> = {
  commandName: 'limiterSlidingWindow',
  lua: loadLua(__dirname, 'sliding-window.lua'),
  paramsArgv: (params) => [String(params.limit), exactString(params.windowMicros)],
  requestArgv: (request) => [request.id, ...permitsArgv(request)],
  step: slidingWindowStep,
  limit: (params) => params.limit,
  // A denial of 4 permits says nothing of a request of 1.
  denialScope: (request) => String(permitsOf(request)),
};

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const slidingWindow = blockable(slidingWindowCore, 'zset');
