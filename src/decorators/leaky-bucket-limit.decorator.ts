import { LeakyBucketLimiterOptions } from '../algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { CostOptions, KeyOptions } from '../contracts/limit-definition';
import { ResolvableOptions } from '../contracts/limit-context';
import { leakyBucketLimitKind } from '../algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { limitOf } from './limit-metadata.accessor';
import { StateOptions } from '../algorithms/state-ops/state-options';
import { LeaseOptions } from '../algorithms/state-ops/lease-option';

/** Options of {@link LeakyBucketLimit}: `capacity` requests may burst, drained at `rate` per second. */
export interface LeakyBucketLimitOptions
  extends
    ResolvableOptions<LeakyBucketLimiterOptions>,
    KeyOptions,
    CostOptions,
    StateOptions,
    LeaseOptions {}

/**
 * Leaky bucket as GCRA (redis-cell's `CL.THROTTLE` semantics): `capacity` requests may
 * arrive at once, then one every `1 / rate` seconds. One number per key.
 * Default prefix 'leakyBucket:', METHOD.
 *
 * @example
 * ```ts
 * @LeakyBucketLimit({ key: 'api:#{headers["x-api-key"]}', capacity: 20, rate: 10 })
 * ```
 * @publicApi
 */
export function LeakyBucketLimit(
  options: LeakyBucketLimitOptions,
): ClassDecorator & MethodDecorator {
  return limitOf(leakyBucketLimitKind, options);
}
