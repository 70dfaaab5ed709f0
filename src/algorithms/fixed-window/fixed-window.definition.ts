import { defineAlgorithm } from '../define-algorithm';
import { permitsArgv, permitsOf } from '../permits';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  fixedWindowChargeStep,
  fixedWindowRefundStep,
  fixedWindowStep,
} from './fixed-window.memory';
import { fixedWindowArgv, FixedWindowParams, fixedWindowParams } from './fixed-window.model';

/** `@CountLimit`, `factory.countLimiter` and `CountLimiter`. */
export const fixedWindowDefinition = defineAlgorithm({
  name: 'fixedWindow',
  decorator: '@CountLimit',
  prefix: 'countLimit:',
  options: ['limit', 'period', 'permits'],
  requestOptions: ['permits'],
  folder: __dirname,
  stateType: 'string',
  limiter: (source, key, params) => new CountLimiter(source, key, params),
  core: {
    paramsArgv: fixedWindowArgv,
    requestArgv: permitsArgv,
    step: fixedWindowStep,
    limit: (params) => params.limit,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: fixedWindowRefundStep },
  charge: { step: fixedWindowChargeStep },
  params: fixedWindowParams,
  windowSeconds: (params) => params.periodMs / 1000,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: fixedWindow, kind: fixedWindowKind } = fixedWindowDefinition;

/**
 * A fixed-window counter on one key: `limit` permits per `period`. The math:
 * fixed-window.model.ts.
 *
 * @publicApi
 */
export class CountLimiter extends PermitsLimiter<FixedWindowParams> {
  protected stateAccess(): PermitsAccess<FixedWindowParams> {
    return fixedWindowDefinition.access;
  }
}
