import { exactString } from '../limiter-algorithm';
import {
  PEEK_PERMITS,
  permitsArgv,
  permitsOf,
  permitsRequest,
  permitsRequests,
  staticPermits,
} from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, permitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import {
  leakyBucketStep,
  leakyBucketRefundStep,
  leakyBucketChargeStep,
} from './leaky-bucket.memory';
import { LeakyBucketOptions, LeakyBucketParams, leakyBucketParams } from './leaky-bucket.model';

/** `@LeakyBucketLimit`, `factory.leakyBucketLimiter` and `LeakyBucketLimiter`. */
export const leakyBucketDefinition = defineAlgorithm({
  name: 'leakyBucket',
  decorator: '@LeakyBucketLimit',
  prefix: 'leakyBucket:',
  options: ['capacity', 'rate', 'permits'],
  folder: __dirname,
  stateType: 'string',
  core: {
    paramsArgv: (params) => [String(params.capacity), exactString(params.intervalMicros)],
    requestArgv: permitsArgv,
    step: leakyBucketStep,
    limit: (params) => params.capacity,
    // A denial of 4 permits says nothing of a request of 1.
    denialScope: (request) => String(permitsOf(request)),
  },
  refund: { step: leakyBucketRefundStep },
  charge: { step: leakyBucketChargeStep },
  params: (options: LeakyBucketOptions, where) => leakyBucketParams(options, where),
  requests: (options, params, where) => ({
    newRequest: permitsRequests(staticPermits(options.permits, params.capacity, where)),
    windowSeconds: (params.capacity * params.intervalMicros) / 1_000_000,
  }),
  limiter: (source, key, params) => new LeakyBucketLimiter(source, key, params),
});

/** What the limits run (with blocks kept in its key), its operations, its kind. */
export const {
  algorithm: leakyBucket,
  ops: leakyBucketOps,
  kind: leakyBucketKind,
} = leakyBucketDefinition;

/**
 * A leaky bucket (GCRA, redis-cell's `CL.THROTTLE`) on one key: `capacity` requests may
 * arrive at once, then `rate` a second. Shared through the store by every process that
 * uses the same key and options. The math: leaky-bucket.model.ts.
 *
 * @example
 * ```ts
 * const limiter = factory.leakyBucketLimiter({ key: `api:${userId}`, capacity: 10, rate: 2 });
 * const { allowed, remaining, retryAfterMs, resetMs } = await limiter.decide();
 * ```
 *
 * @publicApi
 */
export class LeakyBucketLimiter extends PermitsLimiter<LeakyBucketParams> {
  protected stateAccess(): PermitsAccess<LeakyBucketParams> {
    return permitsAccess(leakyBucketDefinition, PEEK_PERMITS, (permits) =>
      permitsRequest(permits, 'leakyBucketLimiter'),
    );
  }
}
