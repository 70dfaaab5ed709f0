import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess } from '../state-ops/key-state-limiter';
import { RefundRequest } from '../state-ops/state-ops.model';
import {
  approximateSlidingWindowStep,
  approximateSlidingWindowRefundStep,
  approximateSlidingWindowChargeStep,
} from './approximate-sliding-window.memory';
import {
  approximateSlidingWindowParams,
  ApproximateSlidingWindowParams,
  ApproximateSlidingWindowRequest,
  ApproximateSlidingWindowState,
} from './approximate-sliding-window.model';
import { SlidingWindowOptions } from '../sliding-window/sliding-window.model';
import { SlidingWindowLimiter } from '../sliding-window/sliding-window.definition';
import { permitsRequest, permitsRequests, staticPermits } from '../permits';

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

type Adjustment = LimiterAlgorithm<
  ApproximateSlidingWindowParams,
  RefundRequest,
  ApproximateSlidingWindowState
>;

/** Takes permits off the acquire's window: approximate-sliding-window.refund.lua and its twin. */
export const approximateSlidingWindowRefund: Adjustment = {
  commandName: 'limiterApproximateSlidingWindowRefund',
  lua: loadLua(__dirname, 'approximate-sliding-window.refund.lua'),
  paramsArgv: approximateSlidingWindowCore.paramsArgv,
  step: approximateSlidingWindowRefundStep,
  limit: approximateSlidingWindowCore.limit,
};

/**
 * Adds permits to the current window's count, into debt if need be:
 * approximate-sliding-window.charge.lua and its twin.
 */
export const approximateSlidingWindowCharge: Adjustment = {
  commandName: 'limiterApproximateSlidingWindowCharge',
  lua: loadLua(__dirname, 'approximate-sliding-window.charge.lua'),
  paramsArgv: approximateSlidingWindowCore.paramsArgv,
  step: approximateSlidingWindowChargeStep,
  limit: approximateSlidingWindowCore.limit,
};

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `ApproximateSlidingWindowLimiter`. */
export const approximateSlidingWindowDefinition = defineAlgorithm({
  name: 'approximateSlidingWindow',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindowApprox:',
  options: ['limit', 'window', 'approximate', 'permits'],
  variant: { of: 'slidingWindow', when: 'approximate' },
  stateType: 'string',
  core: approximateSlidingWindowCore,
  refund: approximateSlidingWindowRefund,
  charge: approximateSlidingWindowCharge,
  params: (options: SlidingWindowOptions, where) => approximateSlidingWindowParams(options, where),
  requests: (options, params, where) => ({
    newRequest: permitsRequests(staticPermits(options.permits, params.limit, where)),
    windowSeconds: params.windowMicros / 1_000_000,
  }),
  limiter: (source, key, params) => new ApproximateSlidingWindowLimiter(source, key, params),
});

/** The approximate sliding window with blocks kept in its key: what the limits run. */
export const approximateSlidingWindow = approximateSlidingWindowDefinition.algorithm;
/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const approximateSlidingWindowOps = approximateSlidingWindowDefinition.ops;
export const approximateSlidingWindowKind = approximateSlidingWindowDefinition.kind;

const ONE_PERMIT: ApproximateSlidingWindowRequest = Object.freeze({ permits: 1 });

/**
 * `factory.slidingWindowLimiter({ ..., approximate: true })`: the sliding window at a
 * counter's cost, one short string per key whatever the limit. The math:
 * approximate-sliding-window.model.ts.
 *
 * @publicApi
 */
export class ApproximateSlidingWindowLimiter extends SlidingWindowLimiter {
  protected override stateAccess(): PermitsAccess<ApproximateSlidingWindowParams> {
    return {
      acquire: approximateSlidingWindow,
      ops: approximateSlidingWindowOps,
      peekRequest: ONE_PERMIT,
      request: (permits) => permitsRequest(permits, 'slidingWindowLimiter'),
    };
  }
}
