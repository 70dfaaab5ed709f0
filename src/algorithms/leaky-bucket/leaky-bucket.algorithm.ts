import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { permitsArgv, permitsOf, PermitsRequest } from '../permits';
import { blockable } from '../state-ops/blockable';
import { leakyBucketStep } from './leaky-bucket.memory';
import { LeakyBucketParams, LeakyBucketState } from './leaky-bucket.model';

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

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const leakyBucket = blockable(leakyBucketCore, 'string');
