import { TokenBucketOptions } from './token-bucket.model';
import { CostOptions, KeyOptions } from '../../decorators/limit-definition';
import { Resolvable, ResolvableOptions } from '../../guard/limit-context';
import { stateLimitDecorator } from '../state-ops/state-limit-decorator';
import { StateOptions } from '../state-ops/state-options';

/** Options of {@link RateLimit}; rates in permits per second, times in seconds. */
export interface RateLimitOptions
  extends ResolvableOptions<TokenBucketOptions>, KeyOptions, CostOptions, StateOptions {
  /** Seconds a request may wait for its permits instead of being refused, default 0. */
  timeout?: Resolvable<number>;
}

/**
 * Token bucket: `rate` permits a second, up to `burst` seconds of them saved. A request
 * may wait up to `timeout` seconds for its permits; waiters get successive slots.
 * Defaults: rate 1, burst 1, permits 1, timeout 0, expire 60, prefix 'rateLimit:', METHOD.
 *
 * @example
 * ```ts
 * // One SMS code a minute per phone number.
 * @RateLimit({ key: 'sms:#{body.phone}', rate: 1 / 60, burst: 60 })
 * ```
 * @publicApi
 */
export function RateLimit(options: RateLimitOptions = {}): ClassDecorator & MethodDecorator {
  return stateLimitDecorator({
    kind: 'tokenBucket',
    decorator: '@RateLimit',
    options: { ...options },
  });
}
