import { defineAlgorithm } from '../define-algorithm';
import { LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import {
  permitsArgv,
  permitsOf,
  permitsRequest,
  permitsRequests,
  PermitsRequest,
  staticPermits,
} from '../permits';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import { RefundRequest } from '../state-ops/state-ops.model';
import {
  fixedWindowChargeStep,
  fixedWindowRefundStep,
  fixedWindowStep,
} from './fixed-window.memory';
import {
  FixedWindowOptions,
  FixedWindowParams,
  fixedWindowParams,
  FixedWindowState,
} from './fixed-window.model';

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

type Adjustment = LimiterAlgorithm<FixedWindowParams, RefundRequest, FixedWindowState>;

/** Takes permits off a fixed window's count: fixed-window.refund.lua and its twin. */
export const fixedWindowRefund: Adjustment = {
  commandName: 'limiterFixedWindowRefund',
  lua: loadLua(__dirname, 'fixed-window.refund.lua'),
  paramsArgv: fixedWindowCore.paramsArgv,
  step: fixedWindowRefundStep,
  limit: fixedWindowCore.limit,
};

/** Adds permits to a fixed window's count, into debt if need be: fixed-window.charge.lua and its twin. */
export const fixedWindowCharge: Adjustment = {
  commandName: 'limiterFixedWindowCharge',
  lua: loadLua(__dirname, 'fixed-window.charge.lua'),
  paramsArgv: fixedWindowCore.paramsArgv,
  step: fixedWindowChargeStep,
  limit: fixedWindowCore.limit,
};

/** `@CountLimit`, `factory.countLimiter` and `CountLimiter`. */
export const fixedWindowDefinition = defineAlgorithm({
  name: 'fixedWindow',
  decorator: '@CountLimit',
  prefix: 'countLimit:',
  options: ['limit', 'period', 'permits'],
  stateType: 'string',
  core: fixedWindowCore,
  refund: fixedWindowRefund,
  charge: fixedWindowCharge,
  params: (options: FixedWindowOptions, where) => fixedWindowParams(options, where),
  requests: (options, params, where) => ({
    newRequest: permitsRequests(staticPermits(options.permits, params.limit, where)),
    windowSeconds: params.periodMs / 1000,
  }),
  limiter: (source, key, params) => new CountLimiter(source, key, params),
});

/** The fixed-window counter with blocks kept in its key: what the limits run. */
export const fixedWindow = fixedWindowDefinition.algorithm;
/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const fixedWindowOps = fixedWindowDefinition.ops;
export const fixedWindowKind = fixedWindowDefinition.kind;

/**
 * A fixed-window counter on one key: `limit` permits per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter extends PermitsLimiter<FixedWindowParams> {
  protected stateAccess(): PermitsAccess<FixedWindowParams> {
    return {
      acquire: fixedWindow,
      ops: fixedWindowOps,
      peekRequest: undefined,
      request: (permits) => permitsRequest(permits, 'countLimiter'),
    };
  }
}
