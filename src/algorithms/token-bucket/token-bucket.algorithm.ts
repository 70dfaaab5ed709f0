import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { tokenBucketStep } from './token-bucket.memory';
import { TokenBucketParams, TokenBucketRequest, TokenBucketState } from './token-bucket.model';

/** The token bucket (`@RateLimit`): Lua for Redis, {@link tokenBucketStep} in memory. */
export const tokenBucket: LimiterAlgorithm<
  TokenBucketParams,
  TokenBucketRequest,
  TokenBucketState
> = {
  commandName: 'limiterTokenBucket',
  lua: loadLua(__dirname, 'token-bucket.lua'),
  paramsArgv: (params) => [
    exactString(params.maxPermits),
    exactString(params.intervalMicros),
    exactString(params.initialPermits),
    exactString(params.expireMicros),
  ],
  requestArgv: (request) =>
    request.refund
      ? [String(request.permits), '0', 'refund']
      : [String(request.permits), exactString(request.timeoutMicros)],
  step: tokenBucketStep,
  limit: (params) => params.maxPermits,
  // A refund is never denied, and must always reach the store.
  denialScope: (request) =>
    request.refund ? undefined : `${request.permits}/${request.timeoutMicros}`,
  isDecision: (request) => !request.refund,
};
