import { defineAlgorithm } from '../define-algorithm';
import {
  PEEK_PERMITS,
  permitsArgv,
  permitsOf,
  permitsRequest,
  permitsRequests,
  staticPermits,
} from '../permits';
import { PermitsAccess, permitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  fixedWindowChargeStep,
  fixedWindowRefundStep,
  fixedWindowStep,
} from './fixed-window.memory';
import { FixedWindowOptions, FixedWindowParams, fixedWindowParams } from './fixed-window.model';

/** `@CountLimit`, `factory.countLimiter` and `CountLimiter`. */
export const fixedWindowDefinition = defineAlgorithm({
  name: 'fixedWindow',
  decorator: '@CountLimit',
  prefix: 'countLimit:',
  options: ['limit', 'period', 'permits'],
  folder: __dirname,
  stateType: 'string',
  core: {
    paramsArgv: (params) => [String(params.limit), String(params.periodMs)],
    requestArgv: permitsArgv,
    step: fixedWindowStep,
    limit: (params) => params.limit,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: fixedWindowRefundStep },
  charge: { step: fixedWindowChargeStep },
  params: (options: FixedWindowOptions, where) => fixedWindowParams(options, where),
  requests: (options, params, where) => ({
    newRequest: permitsRequests(staticPermits(options.permits, params.limit, where)),
    windowSeconds: params.periodMs / 1000,
  }),
  limiter: (source, key, params) => new CountLimiter(source, key, params),
});

/** What the limits run (with blocks kept in its key), its operations, its kind. */
export const {
  algorithm: fixedWindow,
  ops: fixedWindowOps,
  kind: fixedWindowKind,
} = fixedWindowDefinition;

/**
 * A fixed-window counter on one key: `limit` permits per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter extends PermitsLimiter<FixedWindowParams> {
  protected stateAccess(): PermitsAccess<FixedWindowParams> {
    return permitsAccess(fixedWindowDefinition, PEEK_PERMITS, (permits) =>
      permitsRequest(permits, 'countLimiter'),
    );
  }
}
