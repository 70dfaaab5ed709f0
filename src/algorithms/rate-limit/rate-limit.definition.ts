import { Decision } from '../../contracts/decision';
import { defineAlgorithm } from '../define-algorithm';
import { Seconds } from '../duration';
import { EngineAlgorithm } from '../engine-algorithm';
import { exactString } from '../limiter-algorithm';
import { KeyStateAccess, KeyStateLimiter } from '../state-ops/key-state-limiter';
import { RefundRequest } from '../state-ops/state-ops.model';
import { rateLimitRefundStep, rateLimitStep } from './rate-limit.memory';
import {
  burstSeconds,
  checkServable,
  rateLimitArgv,
  RateLimitParams,
  rateLimitParams,
  RateLimitRequest,
  rateLimitRequest,
  RateLimitState,
} from './rate-limit.model';

/** A charge is an acquire that waits as long as it takes (timeout < 0): it never fails. */
const forced = ({ permits }: RefundRequest): RateLimitRequest => ({ permits, timeoutMicros: -1 });

/**
 * Takes permits whatever the bucket holds: the acquire of rate-limit.lua with no timeout,
 * so a cost above what is stored moves E (the moment the bucket is empty) past now. That is
 * the debt: later requests wait, or are denied, until the refill has repaid it.
 */
function rateLimitChargeOf(
  core: EngineAlgorithm<RateLimitParams, RateLimitRequest, RateLimitState>,
): EngineAlgorithm<RateLimitParams, RefundRequest, RateLimitState> {
  return {
    ...core,
    commandName: 'limiterRateLimitCharge',
    // The acquire's own function (charge: { of }), under a command of its own.
    requestArgv: (request) => core.requestArgv!(forced(request)),
    step: (state, now, params, request) => rateLimitStep(state, now, params, forced(request)),
  };
}

/** `@RateLimit`, `factory.rateLimiter` and `RateLimiter`. */
export const rateLimitDefinition = defineAlgorithm({
  name: 'rateLimit',
  decorator: '@RateLimit',
  prefix: 'rateLimit:',
  options: ['rate', 'burst', 'capacity', 'permits', 'timeout', 'expire', 'initialPermits', 'lease'],
  requestOptions: ['permits', 'timeout'],
  durations: ['burst', 'timeout', 'expire'],
  stateType: 'string',
  coalesces: true,
  leases: { endsWithWindow: false },
  limiter: (source, key, params) => new RateLimiter(source, key, params),
  core: {
    paramsArgv: rateLimitArgv,
    requestArgv: (request) =>
      request.byDecorator
        ? [
            String(request.permits),
            exactString(request.timeoutMicros),
            exactString(request.timeoutMicros),
          ]
        : [String(request.permits), exactString(request.timeoutMicros)],
    step: rateLimitStep,
    limit: (params) => params.maxPermits,
    denialScope: (request) => `${request.permits}/${request.timeoutMicros}`,
  },
  refund: { step: rateLimitRefundStep },
  charge: { of: rateLimitChargeOf },
  params: rateLimitParams,
  requests: (options, params, where) => {
    // A `permits` function is resolved per request (resolvable-options.ts).
    const permits = typeof options.permits === 'function' ? 1 : (options.permits ?? 1);
    const checked = rateLimitRequest(permits as number, (options.timeout as Seconds) ?? 0, where);
    checkServable(params, checked, where);
    // A decorator's timeout is its limit's: its writes say so (rate-limit.model.ts).
    const request: RateLimitRequest = { ...checked, byDecorator: true };
    return {
      newRequest: (cost?: number) => (cost === undefined ? request : { ...request, permits: cost }),
      windowSeconds: burstSeconds(params),
    };
  },
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: rateLimit, kind: rateLimitKind } = rateLimitDefinition;

/** A peek asks for 0 permits, now: the bucket as it stands. */
const PEEK_REQUEST: RateLimitRequest = Object.freeze({ permits: 0, timeoutMicros: 0 });

/**
 * Arguments of {@link RateLimiter.tryAcquire}: permits (default 1), timeout in seconds
 * or a duration such as '500ms' (default 0).
 */
export interface TryAcquireOptions {
  permits?: number;
  timeout?: Seconds;
}

/**
 * A token bucket on one key, shared through the store by every process that uses the
 * same key and options. The math: rate-limit.model.ts.
 *
 * @publicApi
 */
export class RateLimiter extends KeyStateLimiter<RateLimitParams> {
  private lastRequest?: { permits: number; timeout: Seconds; request: RateLimitRequest };

  protected stateAccess(): KeyStateAccess<RateLimitParams> {
    return { ops: rateLimitDefinition.ops, peekRequest: PEEK_REQUEST };
  }

  /**
   * Decides without waiting: the decision says whether `permits` (an integer >= 0) are
   * granted within `timeout` seconds and, if so, how long to wait for them (`waitMs`). The
   * permits are reserved when allowed. Infinity as timeout reserves whatever the wait. `0`
   * permits peeks; more than even a full bucket serves within the timeout is denied with
   * `retryAfterMs` -1 (it can never pass).
   */
  async decide(permits = 1, timeout: Seconds = 0): Promise<Decision> {
    return this.store.evaluate({
      algorithm: rateLimit,
      key: this.key,
      params: this.params,
      request: this.request(permits, timeout),
    });
  }

  /** Callers repeat one request shape: validate and build it once, not per decision. */
  private request(permits: number, timeout: Seconds): RateLimitRequest {
    const last = this.lastRequest;
    if (last && last.permits === permits && last.timeout === timeout) return last.request;
    const request = rateLimitRequest(permits, timeout);
    this.lastRequest = { permits, timeout, request };
    return request;
  }

  /**
   * Takes permits if they can be had within `timeout` seconds, waiting for them; resolves
   * false at once, reserving nothing, when they cannot. `tryAcquire()` is
   * `tryAcquire({ permits: 1, timeout: 0 })`; a number is the permits.
   */
  async tryAcquire(options: TryAcquireOptions | number = {}): Promise<boolean> {
    const { permits = 1, timeout = 0 } =
      typeof options === 'number' ? { permits: options } : options;
    const decision = await this.decide(permits, timeout);
    if (decision.allowed && decision.waitMs > 0) await this.store.sleep(decision.waitMs);
    return decision.allowed;
  }

  /** Takes permits, waiting as long as needed; resolves with the milliseconds waited. Equals `tryAcquire` with an infinite timeout. */
  async acquire(permits = 1): Promise<number> {
    const waitMs = await this.reserve(permits);
    if (waitMs > 0) await this.store.sleep(waitMs);
    return waitMs;
  }

  /** Reserves permits and returns the milliseconds until they exist, without waiting. */
  async reserve(permits = 1): Promise<number> {
    return (await this.decide(permits, Infinity)).waitMs;
  }
}
