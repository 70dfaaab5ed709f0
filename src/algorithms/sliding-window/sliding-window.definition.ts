import { exactString } from '../limiter-algorithm';
import { permitsArgv, permitsOf } from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, permitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  slidingWindowStep,
  slidingWindowRefundStep,
  slidingWindowChargeStep,
} from './sliding-window.memory';
import {
  SlidingWindowOptions,
  SlidingWindowParams,
  slidingWindowParams,
} from './sliding-window.model';
import { randomUUID } from 'node:crypto';
import { checkPermits, staticPermits } from '../permits';

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `SlidingWindowLimiter`. */
export const slidingWindowDefinition = defineAlgorithm({
  name: 'slidingWindow',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindow:',
  options: ['limit', 'window', 'permits'],
  folder: __dirname,
  stateType: 'zset',
  core: {
    paramsArgv: (params) => [String(params.limit), exactString(params.windowMicros)],
    requestArgv: (request) => [request.id, ...permitsArgv(request)],
    step: slidingWindowStep,
    limit: (params) => params.limit,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: slidingWindowRefundStep },
  charge: { step: slidingWindowChargeStep },
  params: (options: SlidingWindowOptions, where) => slidingWindowParams(options, where),
  requests: (options, params, where) => ({
    // Members must be unique across servers even within one microsecond.
    newRequest: (
      (cost) =>
      (permits = cost) => ({ id: randomUUID(), permits })
    )(staticPermits(options.permits, params.limit, where)),
    windowSeconds: params.windowMicros / 1_000_000,
  }),
  limiter: (source, key, params) => new SlidingWindowLimiter(source, key, params),
});

/** What the limits run (with blocks kept in its key), its operations, its kind. */
export const {
  algorithm: slidingWindow,
  ops: slidingWindowOps,
  kind: slidingWindowKind,
} = slidingWindowDefinition;

/** A peek takes 0 permits: its member is never added. */
const PEEK_REQUEST = Object.freeze({ id: 'peek', permits: 0 });

/**
 * An exact sliding-window log on one key: at most `limit` requests within any `window`
 * seconds, shared through the store by every process that uses the same key and options.
 * The math: sliding-window.model.ts.
 *
 * @example
 * ```ts
 * const limiter = factory.slidingWindowLimiter({ key: `login:${ip}`, limit: 5, window: 60 });
 * if (!(await limiter.tryAcquire())) throw new RateLimitExceededException();
 * ```
 *
 * @publicApi
 */
export class SlidingWindowLimiter extends PermitsLimiter<SlidingWindowParams> {
  protected stateAccess(): PermitsAccess<SlidingWindowParams> {
    return permitsAccess(slidingWindowDefinition, PEEK_REQUEST, (permits) => ({
      id: randomUUID(),
      permits: checkPermits(permits, 'slidingWindowLimiter'),
    }));
  }
}
