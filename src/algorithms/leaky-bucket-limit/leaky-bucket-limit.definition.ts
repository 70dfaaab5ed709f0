import { permitsArgv, permitsOf } from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  leakyBucketLimitStep,
  leakyBucketLimitRefundStep,
  leakyBucketLimitChargeStep,
} from './leaky-bucket-limit.memory';
import {
  leakyBucketLimitArgv,
  LeakyBucketLimitParams,
  leakyBucketLimitParams,
} from './leaky-bucket-limit.model';

/** `@LeakyBucketLimit`, `factory.leakyBucketLimiter` and `LeakyBucketLimiter`. */
export const leakyBucketLimitDefinition = defineAlgorithm({
  name: 'leakyBucketLimit',
  decorator: '@LeakyBucketLimit',
  prefix: 'leakyBucket:',
  options: ['capacity', 'rate', 'permits', 'lease'],
  requestOptions: ['permits'],
  stateType: 'string',
  coalesces: true,
  leases: { endsWithWindow: false },
  limiter: (source, key, params) => new LeakyBucketLimiter(source, key, params),
  core: {
    paramsArgv: leakyBucketLimitArgv,
    requestArgv: permitsArgv,
    step: leakyBucketLimitStep,
    limit: (params) => params.capacity,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: leakyBucketLimitRefundStep },
  charge: { step: leakyBucketLimitChargeStep },
  params: leakyBucketLimitParams,
  windowSeconds: (params) => (params.capacity * params.intervalMicros) / 1_000_000,
});

/** What the limits run (with blocks kept in its key), and its kind; its operations: `.ops`. */
export const { algorithm: leakyBucketLimit, kind: leakyBucketLimitKind } =
  leakyBucketLimitDefinition;

/**
 * A leaky bucket (GCRA, redis-cell's `CL.THROTTLE`) on one key: `capacity` requests may
 * arrive at once, then `rate` a second. Shared through the store by every process that
 * uses the same key and options. The math: leaky-bucket-limit.model.ts.
 *
 * @example
 * ```ts
 * const limiter = factory.leakyBucketLimiter({ key: `api:${userId}`, capacity: 10, rate: 2 });
 * const { allowed, remaining, retryAfterMs, resetMs } = await limiter.decide();
 * ```
 *
 * @publicApi
 */
export class LeakyBucketLimiter extends PermitsLimiter<LeakyBucketLimitParams> {
  protected stateAccess(): PermitsAccess<LeakyBucketLimitParams> {
    return leakyBucketLimitDefinition.access;
  }
}
