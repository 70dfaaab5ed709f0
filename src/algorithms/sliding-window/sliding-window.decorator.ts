import { SlidingWindowOptions } from './sliding-window.model';
import { KeyOptions } from '../../decorators/limit-definition';
import { ResolvableOptions } from '../../guard/limit-context';
import { limitDecorator } from '../../decorators/limit-metadata.accessor';

/** Options of {@link SlidingWindowLimit}: `limit` requests within any `window` seconds. */
export interface SlidingWindowLimitOptions
  extends ResolvableOptions<SlidingWindowOptions>, KeyOptions {}

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
  return limitDecorator({
    kind: 'slidingWindow',
    decorator: '@SlidingWindowLimit',
    options: { ...options },
  });
}
