import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess } from '../state-ops/key-state-limiter';
import {
  approximateSlidingWindowLimitStep,
  approximateSlidingWindowLimitRefundStep,
  approximateSlidingWindowLimitChargeStep,
} from './approximate-sliding-window-limit.memory';
import {
  approximateSlidingWindowLimitParams,
  ApproximateSlidingWindowLimitParams,
} from './approximate-sliding-window-limit.model';
import { slidingWindowLimitArgv } from '../sliding-window-limit/sliding-window-limit.model';
import { SlidingWindowLimiter } from '../sliding-window-limit/sliding-window-limit.definition';

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `ApproximateSlidingWindowLimiter`. */
export const approximateSlidingWindowLimitDefinition = defineAlgorithm({
  name: 'approximateSlidingWindowLimit',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindowApprox:',
  options: ['limit', 'window', 'approximate', 'permits'],
  requestOptions: ['permits'],
  durations: ['window'],
  variant: { of: 'slidingWindowLimit', when: 'approximate' },
  stateType: 'string',
  coalesces: true,
  limiter: (source, key, params) => new ApproximateSlidingWindowLimiter(source, key, params),
  core: {
    paramsArgv: slidingWindowLimitArgv,
    requestArgv: (request) => [String(request.permits)],
    step: approximateSlidingWindowLimitStep,
    limit: (params) => params.limit,
    // A denial ends only by time passing: other servers can only add to the counts.
    denialScope: (request) => String(request.permits),
  },
  refund: { step: approximateSlidingWindowLimitRefundStep },
  charge: { step: approximateSlidingWindowLimitChargeStep },
  params: approximateSlidingWindowLimitParams,
  windowSeconds: (params) => params.windowMicros / 1_000_000,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: approximateSlidingWindowLimit, kind: approximateSlidingWindowLimitKind } =
  approximateSlidingWindowLimitDefinition;

/**
 * `factory.slidingWindowLimiter({ ..., approximate: true })`: the sliding window at a
 * counter's cost, one short string per key whatever the limit. The math:
 * approximate-sliding-window-limit.model.ts.
 *
 * @publicApi
 */
export class ApproximateSlidingWindowLimiter extends SlidingWindowLimiter {
  protected override stateAccess(): PermitsAccess<ApproximateSlidingWindowLimitParams> {
    return approximateSlidingWindowLimitDefinition.access;
  }
}
