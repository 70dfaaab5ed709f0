import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import {
  permitsArgv,
  permitsOf,
  permitsRequest,
  permitsRequests,
  PermitsRequest,
  staticPermits,
} from '../permits';
import { defineAlgorithm } from '../define-algorithm';
import { PermitsAccess, PermitsLimiter } from '../state-ops/key-state-limiter';
import { RefundRequest } from '../state-ops/state-ops.model';
import {
  leakyBucketStep,
  leakyBucketRefundStep,
  leakyBucketChargeStep,
} from './leaky-bucket.memory';
import {
  LeakyBucketOptions,
  LeakyBucketParams,
  leakyBucketParams,
  LeakyBucketState,
} from './leaky-bucket.model';

/** The leaky bucket, GCRA (`@LeakyBucketLimit`): Lua for Redis, {@link leakyBucketStep} in memory. */
export const leakyBucketCore: LimiterAlgorithm<
  LeakyBucketParams,
  PermitsRequest | undefined,
  LeakyBucketState
> = {
  commandName: 'limiterLeakyBucket',
  lua: loadLua(__dirname, 'leaky-bucket.lua'),
  paramsArgv: (params) => [String(params.capacity), exactString(params.intervalMicros)],
  requestArgv: permitsArgv,
  step: leakyBucketStep,
  limit: (params) => params.capacity,
  // A denial of 4 permits says nothing of a request of 1.
  denialScope: (request) => String(permitsOf(request)),
};

type Adjustment = LimiterAlgorithm<LeakyBucketParams, RefundRequest, LeakyBucketState>;

/** Gives requests back to a leaky bucket: leaky-bucket.refund.lua and its twin. */
export const leakyBucketRefund: Adjustment = {
  commandName: 'limiterLeakyBucketRefund',
  lua: loadLua(__dirname, 'leaky-bucket.refund.lua'),
  paramsArgv: leakyBucketCore.paramsArgv,
  step: leakyBucketRefundStep,
  limit: leakyBucketCore.limit,
};

/** Adds requests to a leaky bucket, into debt if need be: leaky-bucket.charge.lua and its twin. */
export const leakyBucketCharge: Adjustment = {
  commandName: 'limiterLeakyBucketCharge',
  lua: loadLua(__dirname, 'leaky-bucket.charge.lua'),
  paramsArgv: leakyBucketCore.paramsArgv,
  step: leakyBucketChargeStep,
  limit: leakyBucketCore.limit,
};

/** `@LeakyBucketLimit`, `factory.leakyBucketLimiter` and `LeakyBucketLimiter`. */
export const leakyBucketDefinition = defineAlgorithm({
  name: 'leakyBucket',
  decorator: '@LeakyBucketLimit',
  prefix: 'leakyBucket:',
  options: ['capacity', 'rate', 'permits'],
  stateType: 'string',
  core: leakyBucketCore,
  refund: leakyBucketRefund,
  charge: leakyBucketCharge,
  params: (options: LeakyBucketOptions, where) => leakyBucketParams(options, where),
  requests: (options, params, where) => ({
    newRequest: permitsRequests(staticPermits(options.permits, params.capacity, where)),
    windowSeconds: (params.capacity * params.intervalMicros) / 1_000_000,
  }),
  limiter: (source, key, params) => new LeakyBucketLimiter(source, key, params),
});

/** The leaky bucket with blocks kept in its key: what the limits run. */
export const leakyBucket = leakyBucketDefinition.algorithm;
/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const leakyBucketOps = leakyBucketDefinition.ops;
export const leakyBucketKind = leakyBucketDefinition.kind;

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
    return {
      acquire: leakyBucket,
      ops: leakyBucketOps,
      peekRequest: undefined,
      request: (permits) => permitsRequest(permits, 'leakyBucketLimiter'),
    };
  }
}
