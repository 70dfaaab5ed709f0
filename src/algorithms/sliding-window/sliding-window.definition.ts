import { permitsArgv, permitsOf } from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  slidingWindowStep,
  slidingWindowRefundStep,
  slidingWindowChargeStep,
} from './sliding-window.memory';
import {
  slidingWindowArgv,
  SlidingWindowParams,
  slidingWindowParams,
} from './sliding-window.model';
import { randomUUID } from 'node:crypto';

/** A peek takes 0 permits: its member is never added. */
const PEEK_REQUEST = Object.freeze({ id: 'peek', permits: 0 });

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `SlidingWindowLimiter`. */
export const slidingWindowDefinition = defineAlgorithm({
  name: 'slidingWindow',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindow:',
  options: ['limit', 'window', 'permits'],
  requestOptions: ['permits'],
  folder: __dirname,
  stateType: 'zset',
  limiter: (source, key, params) => new SlidingWindowLimiter(source, key, params),
  core: {
    paramsArgv: slidingWindowArgv,
    requestArgv: (request) => [request.id, ...permitsArgv(request)],
    step: slidingWindowStep,
    limit: (params) => params.limit,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: slidingWindowRefundStep },
  charge: { step: slidingWindowChargeStep },
  params: slidingWindowParams,
  windowSeconds: (params) => params.windowMicros / 1_000_000,
  // Members must be unique across servers even within one microsecond.
  permitRequest: (permits) => ({ id: randomUUID(), permits }),
  peekRequest: PEEK_REQUEST,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: slidingWindow, kind: slidingWindowKind } = slidingWindowDefinition;

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
    return slidingWindowDefinition.access;
  }
}
