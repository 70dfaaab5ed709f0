import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { blockable } from '../state-ops/blockable';
import { fixedWindowStep } from './fixed-window.memory';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** The fixed-window counter (`@CountLimit`): Lua for Redis, {@link fixedWindowStep} in memory. */
export const fixedWindowCore: LimiterAlgorithm<FixedWindowParams, void, FixedWindowState> = {
  commandName: 'limiterFixedWindow',
  lua: loadLua(__dirname, 'fixed-window.lua'),
  paramsArgv: (params) => [String(params.limit), String(params.periodMs)],
  step: (state, now, params) => fixedWindowStep(state, now, params),
  limit: (params) => params.limit,
  denialScope: () => '',
};

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const fixedWindow = blockable(fixedWindowCore, 'string');
