import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { blockable } from '../state-ops/blockable';
import { tokenBucketStep } from './token-bucket.memory';
import { TokenBucketParams, TokenBucketRequest, TokenBucketState } from './token-bucket.model';

/** The token bucket (`@RateLimit`): Lua for Redis, {@link tokenBucketStep} in memory. */
export const tokenBucketCore: LimiterAlgorithm<
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
  requestArgv: (request) => [String(request.permits), exactString(request.timeoutMicros)],
  step: tokenBucketStep,
  limit: (params) => params.maxPermits,
  denialScope: (request) => `${request.permits}/${request.timeoutMicros}`,
};

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const tokenBucket = blockable(tokenBucketCore, 'string');
