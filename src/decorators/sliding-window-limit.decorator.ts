import { SlidingWindowLimiterOptions } from '../algorithms/sliding-window-limit/sliding-window-limit.model';
import { CostOptions, KeyOptions } from '../contracts/limit-definition';
import { ResolvableOptions } from '../contracts/limit-context';
import { slidingWindowLimitKind } from '../algorithms/sliding-window-limit/sliding-window-limit.definition';
import { approximateSlidingWindowLimitKind } from '../algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { limitOf } from './limit-metadata.accessor';
import { StateOptions } from '../algorithms/state-ops/state-options';

/** Options of {@link SlidingWindowLimit}: `limit` requests within any `window` seconds. */
export interface SlidingWindowLimitOptions
  extends ResolvableOptions<SlidingWindowLimiterOptions>, KeyOptions, CostOptions, StateOptions {}

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
  // `approximate: true` selects the approximate variant.
  return limitOf(slidingWindowLimitKind, options, [approximateSlidingWindowLimitKind]);
}
