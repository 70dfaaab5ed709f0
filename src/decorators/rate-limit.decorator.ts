import { RateLimiterOptions } from '../algorithms/rate-limit/rate-limit.model';
import { CostOptions, KeyOptions } from '../contracts/limit-definition';
import { Resolvable, ResolvableOptions } from '../contracts/limit-context';
import { rateLimitKind } from '../algorithms/rate-limit/rate-limit.definition';
import { limitOf } from './limit-metadata.accessor';
import { StateOptions } from '../algorithms/state-ops/state-options';
import { LeaseOptions } from '../algorithms/state-ops/lease-option';
import { Seconds } from '../algorithms/duration';

/** Options of {@link RateLimit}; rates in permits per second, times in seconds. */
export interface RateLimitOptions
  extends
    ResolvableOptions<RateLimiterOptions>,
    KeyOptions,
    CostOptions,
    StateOptions,
    LeaseOptions {
  /**
   * How long a request may wait for its permits instead of being refused: seconds or a
   * duration such as '500ms'. Default 0.
   */
  timeout?: Resolvable<Seconds>;
}

/**
 * Token bucket: `rate` permits a second, up to `burst` seconds of them saved (or give
 * `capacity`, the permits saved, instead of `burst`). A request may wait up to `timeout`
 * for its permits; waiters get successive slots. Times are seconds or durations ('1m').
 * Defaults: rate 1, burst 1, permits 1, timeout 0, expire 60, prefix 'rateLimit:', METHOD.
 *
 * @example
 * ```ts
 * // One SMS code a minute per phone number.
 * @RateLimit({ key: 'sms:#{body.phone}', rate: 1 / 60, capacity: 1 })
 * ```
 * @publicApi
 */
export function RateLimit(options: RateLimitOptions = {}): ClassDecorator & MethodDecorator {
  return limitOf(rateLimitKind, options);
}
