import { defineAlgorithm } from '../define-algorithm';
import { permitsArgv, permitsOf } from '../permits';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import { countLimitChargeStep, countLimitRefundStep, countLimitStep } from './count-limit.memory';
import { countLimitArgv, CountLimitParams, countLimitParams } from './count-limit.model';

/** `@CountLimit`, `factory.countLimiter` and `CountLimiter`. */
export const countLimitDefinition = defineAlgorithm({
  name: 'countLimit',
  decorator: '@CountLimit',
  prefix: 'countLimit:',
  options: ['limit', 'period', 'permits', 'lease'],
  requestOptions: ['permits'],
  durations: ['period'],
  stateType: 'string',
  coalesces: true,
  leases: { endsWithWindow: true },
  limiter: (source, key, params) => new CountLimiter(source, key, params),
  core: {
    paramsArgv: countLimitArgv,
    requestArgv: permitsArgv,
    step: countLimitStep,
    limit: (params) => params.limit,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: countLimitRefundStep },
  charge: { step: countLimitChargeStep },
  params: countLimitParams,
  windowSeconds: (params) => params.periodMs / 1000,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: countLimit, kind: countLimitKind } = countLimitDefinition;

/**
 * A fixed-window counter on one key: `limit` permits per `period`. The math:
 * count-limit.model.ts.
 *
 * @publicApi
 */
export class CountLimiter extends PermitsLimiter<CountLimitParams> {
  protected stateAccess(): PermitsAccess<CountLimitParams> {
    return countLimitDefinition.access;
  }
}
