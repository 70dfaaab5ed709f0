import { SlidingWindowOptions } from './sliding-window.model';
import { CostOptions, KeyOptions } from '../../decorators/limit-definition';
import { ResolvableOptions } from '../../guard/limit-context';
import { stateLimitDecorator } from '../state-ops/state-limit-decorator';
import { StateOptions } from '../state-ops/state-options';

/** Options of {@link SlidingWindowLimit}: `limit` requests within any `window` seconds. */
export interface SlidingWindowLimitOptions
  extends ResolvableOptions<SlidingWindowOptions>, KeyOptions, CostOptions, StateOptions {}

/**
 * Exact sliding window: never more than `limit` requests within any `window` seconds,
 * with no burst at window boundaries. Memory per key grows with `limit`.
 * Default prefix 'slidingWindow:', METHOD.
 *
 * @example
 * ```ts
 * @SlidingWindowLimit({ limitType: LimitType.IP, limit: 5, window: 60 }) // 5 logins a minute per IP
 * ```
 * @publicApi
 */
export function SlidingWindowLimit(
  options: SlidingWindowLimitOptions,
): ClassDecorator & MethodDecorator {
  return stateLimitDecorator({
    kind: 'slidingWindow',
    decorator: '@SlidingWindowLimit',
    options: { ...options },
  });
}
