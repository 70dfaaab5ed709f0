import { Seconds } from '../duration';
import { anyAlgorithm, LimitKind } from '../limit-kind';
import { blockParams, countOption, STATE_OPTION_NAMES } from '../state-ops/state-options';
import { tokenBucketOps } from './token-bucket.ops';
import { tokenBucket } from './token-bucket.algorithm';
import { TokenBucketLimiter } from './token-bucket.limiter';
import {
  burstSeconds,
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
    const request = tokenBucketRequest(
      params,
      (options.permits as number) ?? 1,
      (options.timeout as Seconds) ?? 0,
      where,
    );
    return {
      algorithm: anyAlgorithm(tokenBucket),
      params,
      ops: tokenBucketOps,
      count: countOption(options.count, where),
      newRequest: () => request,
      windowSeconds: burstSeconds(params),
    };
  },
  createLimiter: (source, key, options, where) =>
    new TokenBucketLimiter(source, key, tokenBucketParams(options, where)),
};
