import { permitsArgv, permitsOf } from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  slidingWindowLimitStep,
  slidingWindowLimitRefundStep,
  slidingWindowLimitChargeStep,
} from './sliding-window-limit.memory';
import {
  slidingWindowLimitArgv,
  SlidingWindowLimitParams,
  slidingWindowLimitParams,
} from './sliding-window-limit.model';
import { randomUUID } from 'node:crypto';

/** A peek takes 0 permits: its member is never added. */
const PEEK_REQUEST = Object.freeze({ id: 'peek', permits: 0 });

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `SlidingWindowLimiter`. */
export const slidingWindowLimitDefinition = defineAlgorithm({
  name: 'slidingWindowLimit',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindow:',
  options: ['limit', 'window', 'permits'],
  requestOptions: ['permits'],
  durations: ['window'],
  stateType: 'zset',
  coalesces: true,
  limiter: (source, key, params) => new SlidingWindowLimiter(source, key, params),
  core: {
    paramsArgv: slidingWindowLimitArgv,
    requestArgv: (request) => [request.id, ...permitsArgv(request)],
    step: slidingWindowLimitStep,
    limit: (params) => params.limit,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: slidingWindowLimitRefundStep },
  charge: { step: slidingWindowLimitChargeStep },
  params: slidingWindowLimitParams,
  windowSeconds: (params) => params.windowMicros / 1_000_000,
  // Members must be unique across servers even within one microsecond.
  permitRequest: (permits) => ({ id: randomUUID(), permits }),
  peekRequest: PEEK_REQUEST,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: slidingWindowLimit, kind: slidingWindowLimitKind } =
  slidingWindowLimitDefinition;

/**
 * An exact sliding-window log on one key: at most `limit` requests within any `window`
 * seconds, shared through the store by every process that uses the same key and options.
 * The math: sliding-window-limit.model.ts.
 *
 * @example
 * ```ts
 * const limiter = factory.slidingWindowLimiter({ key: `login:${ip}`, limit: 5, window: 60 });
 * if (!(await limiter.tryAcquire())) throw new RateLimitExceededException();
 * ```
 *
 * @publicApi
 */
export class SlidingWindowLimiter extends PermitsLimiter<SlidingWindowLimitParams> {
  protected stateAccess(): PermitsAccess<SlidingWindowLimitParams> {
    return slidingWindowLimitDefinition.access;
  }
}
