import { Seconds } from '../duration';
import { anyAlgorithm, LimitKind } from '../limit-kind';
import { blockParams, countOption, STATE_OPTION_NAMES } from '../state-ops/state-options';
import { tokenBucketOps } from './token-bucket.ops';
import { tokenBucket } from './token-bucket.algorithm';
import { TokenBucketLimiter } from './token-bucket.limiter';
import {
  burstSeconds,
  checkServable,
  TokenBucketOptions,
  tokenBucketParams,
  tokenBucketRequest,
} from './token-bucket.model';

/** `@RateLimit` and `factory.rateLimiter`. */
export const tokenBucketKind: LimitKind<TokenBucketOptions, TokenBucketLimiter> = {
  name: 'tokenBucket',
  decorator: '@RateLimit',
  defaultPrefix: 'rateLimit:',
  optionNames: [
    'rate',
    'burst',
    'capacity',
    'permits',
    'timeout',
    'expire',
    'initialPermits',
    ...STATE_OPTION_NAMES,
  ],
  ops: tokenBucketOps,
  algorithm: tokenBucket,
  compile(options, where) {
    const params = {
      ...tokenBucketParams(options, where),
      ...blockParams(options.block, where),
    };
    // A `permits` function is resolved per request (resolvable-options.ts).
    const permits = typeof options.permits === 'function' ? 1 : (options.permits ?? 1);
    const request = tokenBucketRequest(permits as number, (options.timeout as Seconds) ?? 0, where);
    checkServable(params, request, where);
    return {
      algorithm: anyAlgorithm(tokenBucket),
      params,
      ops: tokenBucketOps,
      count: countOption(options.count, where),
      newRequest: (cost?: number) =>
        cost === undefined ? request : { permits: cost, timeoutMicros: request.timeoutMicros },
      windowSeconds: burstSeconds(params),
    };
  },
  createLimiter: (source, key, options, where) =>
    new TokenBucketLimiter(source, key, tokenBucketParams(options, where)),
};
