import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { permitsArgv, permitsOf } from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import { RefundRequest } from '../state-ops/state-ops.model';
import {
  slidingWindowStep,
  slidingWindowRefundStep,
  slidingWindowChargeStep,
} from './sliding-window.memory';
import {
  SlidingWindowOptions,
  SlidingWindowParams,
  slidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState,
} from './sliding-window.model';
import { randomUUID } from 'node:crypto';
import { checkPermits, staticPermits } from '../permits';

/** The sliding-window log (`@SlidingWindowLimit`): Lua for Redis, {@link slidingWindowStep} in memory. */
export const slidingWindowCore: LimiterAlgorithm<
  SlidingWindowParams,
  SlidingWindowRequest,
  SlidingWindowState
> = {
  commandName: 'limiterSlidingWindow',
  lua: loadLua(__dirname, 'sliding-window.lua'),
  paramsArgv: (params) => [String(params.limit), exactString(params.windowMicros)],
  requestArgv: (request) => [request.id, ...permitsArgv(request)],
  step: slidingWindowStep,
  limit: (params) => params.limit,
  // A denial of 4 permits says nothing of a request of 1.
  denialScope: (request) => String(permitsOf(request)),
};

type Adjustment = LimiterAlgorithm<SlidingWindowParams, RefundRequest, SlidingWindowState>;

/** Removes requests from a sliding-window log: sliding-window.refund.lua and its twin. */
export const slidingWindowRefund: Adjustment = {
  commandName: 'limiterSlidingWindowRefund',
  lua: loadLua(__dirname, 'sliding-window.refund.lua'),
  paramsArgv: slidingWindowCore.paramsArgv,
  step: slidingWindowRefundStep,
  limit: slidingWindowCore.limit,
};

/** Logs a weighted member now, into debt if need be: sliding-window.charge.lua and its twin. */
export const slidingWindowCharge: Adjustment = {
  commandName: 'limiterSlidingWindowCharge',
  lua: loadLua(__dirname, 'sliding-window.charge.lua'),
  paramsArgv: slidingWindowCore.paramsArgv,
  step: slidingWindowChargeStep,
  limit: slidingWindowCore.limit,
};

/** `@SlidingWindowLimit`, `factory.slidingWindowLimiter` and `SlidingWindowLimiter`. */
export const slidingWindowDefinition = defineAlgorithm({
  name: 'slidingWindow',
  decorator: '@SlidingWindowLimit',
  prefix: 'slidingWindow:',
  options: ['limit', 'window', 'permits'],
  stateType: 'zset',
  core: slidingWindowCore,
  refund: slidingWindowRefund,
  charge: slidingWindowCharge,
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

/** The sliding-window log with blocks kept in its key: what the limits run. */
export const slidingWindow = slidingWindowDefinition.algorithm;
/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const slidingWindowOps = slidingWindowDefinition.ops;
export const slidingWindowKind = slidingWindowDefinition.kind;

/** A peek's member never stays: the key is restored after it. */
const PEEK_REQUEST = Object.freeze({ id: 'peek' });

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
    return {
      acquire: slidingWindow,
      ops: slidingWindowOps,
      peekRequest: PEEK_REQUEST,
      request: (permits) => ({
        id: randomUUID(),
        permits: checkPermits(permits, 'slidingWindowLimiter'),
      }),
    };
  }
}
