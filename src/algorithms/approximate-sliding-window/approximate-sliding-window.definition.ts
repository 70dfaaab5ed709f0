import { exactString } from '../limiter-algorithm';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, permitsAccess } from '../state-ops/key-state-limiter';
import {
  approximateSlidingWindowStep,
  approximateSlidingWindowRefundStep,
  approximateSlidingWindowChargeStep,
} from './approximate-sliding-window.memory';
import {
  approximateSlidingWindowParams,
  ApproximateSlidingWindowParams,
} from './approximate-sliding-window.model';
import { SlidingWindowOptions } from '../sliding-window/sliding-window.model';
import { SlidingWindowLimiter } from '../sliding-window/sliding-window.definition';
import { PEEK_PERMITS, permitsRequest, permitsRequests, staticPermits } from '../permits';

/**
 * Adds permits to the current window's count, into debt if need be:
 * approximate-sliding-window.charge.lua and its twin.
 */
/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `ApproximateSlidingWindowLimiter`. */
export const approximateSlidingWindowDefinition = defineAlgorithm({
  name: 'approximateSlidingWindow',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindowApprox:',
  options: ['limit', 'window', 'approximate', 'permits'],
  variant: { of: 'slidingWindow', when: 'approximate' },
  folder: __dirname,
  stateType: 'string',
  core: {
    paramsArgv: (params) => [String(params.limit), exactString(params.windowMicros)],
    requestArgv: (request) => [String(request.permits)],
    step: approximateSlidingWindowStep,
    limit: (params) => params.limit,
    // A denial ends only by time passing: other servers can only add to the counts.
    denialScope: (request) => String(request.permits),
  },
  refund: { step: approximateSlidingWindowRefundStep },
  charge: { step: approximateSlidingWindowChargeStep },
  params: (options: SlidingWindowOptions, where) => approximateSlidingWindowParams(options, where),
  requests: (options, params, where) => ({
    newRequest: permitsRequests(staticPermits(options.permits, params.limit, where)),
    windowSeconds: params.windowMicros / 1_000_000,
  }),
  limiter: (source, key, params) => new ApproximateSlidingWindowLimiter(source, key, params),
});

/** What the limits run (with blocks kept in its key), its operations, its kind. */
export const {
  algorithm: approximateSlidingWindow,
  ops: approximateSlidingWindowOps,
  kind: approximateSlidingWindowKind,
} = approximateSlidingWindowDefinition;

/**
 * `factory.slidingWindowLimiter({ ..., approximate: true })`: the sliding window at a
 * counter's cost, one short string per key whatever the limit. The math:
 * approximate-sliding-window.model.ts.
 *
 * @publicApi
 */
export class ApproximateSlidingWindowLimiter extends SlidingWindowLimiter {
  protected override stateAccess(): PermitsAccess<ApproximateSlidingWindowParams> {
    return permitsAccess(approximateSlidingWindowDefinition, PEEK_PERMITS, (permits) =>
      permitsRequest(permits, 'slidingWindowLimiter'),
    );
  }
}
