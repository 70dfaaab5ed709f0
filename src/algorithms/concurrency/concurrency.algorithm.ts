import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { permitsArgv } from '../permits';
import { concurrencyStep } from './concurrency.memory';
import { ConcurrencyParams, ConcurrencyRequest, ConcurrencyState } from './concurrency.model';

/** The concurrency limit (`@ConcurrencyLimit`): Lua for Redis, {@link concurrencyStep} in memory. */
export const concurrency: LimiterAlgorithm<
  ConcurrencyParams,
  ConcurrencyRequest,
  ConcurrencyState
> = {
  commandName: 'limiterConcurrency',
  lua: loadLua(__dirname, 'concurrency.lua'),
  paramsArgv: (params) => [String(params.max), exactString(params.leaseMicros)],
  requestArgv: (request) => [request.op, request.id, ...permitsArgv(request)],
  step: concurrencyStep,
  limit: (params) => params.max,
  isDecision: (request) => request.op === 'acquire',
};
