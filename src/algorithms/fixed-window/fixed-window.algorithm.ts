import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { permitsArgv, permitsOf, PermitsRequest } from '../permits';
import { blockable } from '../state-ops/blockable';
import { fixedWindowStep } from './fixed-window.memory';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** The fixed-window counter (`@CountLimit`): Lua for Redis, {@link fixedWindowStep} in memory. */
export const fixedWindowCore: LimiterAlgorithm<
  FixedWindowParams,
  PermitsRequest | undefined,
  FixedWindowState
> = {
  commandName: 'limiterFixedWindow',
  lua: loadLua(__dirname, 'fixed-window.lua'),
  paramsArgv: (params) => [String(params.limit), String(params.periodMs)],
  requestArgv: permitsArgv,
  step: fixedWindowStep,
  limit: (params) => params.limit,
  // A denial of 4 permits says nothing of a request of 1.
  denialScope: (request) => String(permitsOf(request)),
};

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const fixedWindow = blockable(fixedWindowCore, 'string');
