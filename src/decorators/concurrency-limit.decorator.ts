import { concurrencyLimitKind } from '../algorithms/concurrency-limit/concurrency-limit.definition';
import { ConcurrencyLimiterOptions } from '../algorithms/concurrency-limit/concurrency-limit.model';
import { CostOptions, KeyOptions } from '../contracts/limit-definition';
import { ResolvableOptions } from '../contracts/limit-context';
import { limitOf } from './limit-metadata.accessor';

/** Options of {@link ConcurrencyLimit}: at most `max` requests in flight; `lease` seconds at most each. */
export interface ConcurrencyLimitOptions
  extends ResolvableOptions<ConcurrencyLimiterOptions>, KeyOptions, CostOptions {}

/**
 * At most `max` requests in flight per key across all servers. The slot is taken by the
 * guard and given back when the work ends: the handler settles, or a streamed response
 * (`StreamableFile`, `@Res()`, SSE) ends. A client that hangs up does not end the work; one
 * that leaves before the handler starts gives the slot back at once. A denial answers
 * `Retry-After: 1`. A `lease` (default 60 s) frees the slots of a server that crashed.
 * Default prefix 'concurrency:', METHOD.
 *
 * @example
 * ```ts
 * @ConcurrencyLimit({ limitType: LimitType.USER, max: 5 }) // 5 concurrent exports per user
 * ```
 * @publicApi
 */
export function ConcurrencyLimit(
  options: ConcurrencyLimitOptions,
): ClassDecorator & MethodDecorator {
  return limitOf(concurrencyLimitKind, options);
}
