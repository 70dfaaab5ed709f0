import { anyAlgorithm, LimitKind } from '../limit-kind';
import { permitsRequests, staticPermits } from '../permits';
import { blockParams, countOption, STATE_OPTION_NAMES } from '../state-ops/state-options';
import { leakyBucketOps } from './leaky-bucket.ops';
import { leakyBucket } from './leaky-bucket.algorithm';
import { LeakyBucketLimiter } from './leaky-bucket.limiter';
import { LeakyBucketOptions, leakyBucketParams } from './leaky-bucket.model';

/** `@LeakyBucketLimit` and `factory.leakyBucketLimiter`. */
export const leakyBucketKind: LimitKind<LeakyBucketOptions, LeakyBucketLimiter> = {
  name: 'leakyBucket',
  decorator: '@LeakyBucketLimit',
  defaultPrefix: 'leakyBucket:',
  optionNames: ['capacity', 'rate', 'permits', ...STATE_OPTION_NAMES],
  ops: leakyBucketOps,
  algorithm: leakyBucket,
  compile(options, where) {
    const params = {
      ...leakyBucketParams(options as unknown as LeakyBucketOptions, where),
      ...blockParams(options.block, where),
    };
    return {
      algorithm: anyAlgorithm(leakyBucket),
      params,
      ops: leakyBucketOps,
      count: countOption(options.count, where),
      newRequest: permitsRequests(staticPermits(options.permits, params.capacity, where)),
      windowSeconds: (params.capacity * params.intervalMicros) / 1_000_000,
    };
  },
  createLimiter: (source, key, options, where) =>
    new LeakyBucketLimiter(source, key, leakyBucketParams(options, where)),
};
