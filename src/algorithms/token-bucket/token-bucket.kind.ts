import { anyAlgorithm, LimitKind } from '../limit-kind';
import { tokenBucket } from './token-bucket.algorithm';
import { TokenBucketLimiter } from './token-bucket.limiter';
import {
  TOKEN_BUCKET_DEFAULTS,
  TokenBucketOptions,
  tokenBucketParams,
  tokenBucketRefund,
  tokenBucketRequest,
} from './token-bucket.model';

/** `@RateLimit` and `factory.rateLimiter`. */
export const tokenBucketKind: LimitKind<TokenBucketOptions, TokenBucketLimiter> = {
  name: 'tokenBucket',
  decorator: '@RateLimit',
  defaultPrefix: 'rateLimit:',
  optionNames: ['rate', 'burst', 'permits', 'timeout', 'expire', 'initialPermits'],
  algorithm: tokenBucket,
  compile(options, where) {
    const params = tokenBucketParams(options, where);
    const request = tokenBucketRequest(
      params,
      (options.permits as number) ?? 1,
      (options.timeout as number) ?? 0,
      where,
    );
    return {
      algorithm: anyAlgorithm(tokenBucket),
      params,
      newRequest: () => request,
      refundRequest: () => tokenBucketRefund(request),
      windowSeconds: (options.burst as number | undefined) ?? TOKEN_BUCKET_DEFAULTS.burst,
    };
  },
  createLimiter: (source, key, options, where) =>
    new TokenBucketLimiter(source, key, tokenBucketParams(options, where)),
};
