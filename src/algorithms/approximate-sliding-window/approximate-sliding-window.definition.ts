import { luaInclude } from '../lua-source';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess } from '../state-ops/key-state-limiter';
import {
  approximateSlidingWindowStep,
  approximateSlidingWindowRefundStep,
  approximateSlidingWindowChargeStep,
} from './approximate-sliding-window.memory';
import {
  approximateSlidingWindowParams,
  ApproximateSlidingWindowParams,
} from './approximate-sliding-window.model';
import { slidingWindowArgv } from '../sliding-window/sliding-window.model';
import { SlidingWindowLimiter } from '../sliding-window/sliding-window.definition';

/** The roll of the state to the window of `now`, which the acquire and the charge call. */
const APPROXIMATE_ROLL = luaInclude(
  __dirname,
  'approximate-sliding-window.roll.lua',
  'approximate_roll',
);

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `ApproximateSlidingWindowLimiter`. */
export const approximateSlidingWindowDefinition = defineAlgorithm({
  name: 'approximateSlidingWindow',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindowApprox:',
  options: ['limit', 'window', 'approximate', 'permits'],
  requestOptions: ['permits'],
  variant: { of: 'slidingWindow', when: 'approximate' },
  folder: __dirname,
  stateType: 'string',
  limiter: (source, key, params) => new ApproximateSlidingWindowLimiter(source, key, params),
  core: {
    luaIncludes: [APPROXIMATE_ROLL],
    paramsArgv: slidingWindowArgv,
    requestArgv: (request) => [String(request.permits)],
    step: approximateSlidingWindowStep,
    limit: (params) => params.limit,
    // A denial ends only by time passing: other servers can only add to the counts.
    denialScope: (request) => String(request.permits),
  },
  refund: { step: approximateSlidingWindowRefundStep },
  charge: { step: approximateSlidingWindowChargeStep },
  params: approximateSlidingWindowParams,
  windowSeconds: (params) => params.windowMicros / 1_000_000,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: approximateSlidingWindow, kind: approximateSlidingWindowKind } =
  approximateSlidingWindowDefinition;

/**
 * `factory.slidingWindowLimiter({ ..., approximate: true })`: the sliding window at a
 * counter's cost, one short string per key whatever the limit. The math:
 * approximate-sliding-window.model.ts.
 *
 * @publicApi
 */
export class ApproximateSlidingWindowLimiter extends SlidingWindowLimiter {
  protected override stateAccess(): PermitsAccess<ApproximateSlidingWindowParams> {
    return approximateSlidingWindowDefinition.access;
  }
}
