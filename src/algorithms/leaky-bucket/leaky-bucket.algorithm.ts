import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { blockable } from '../state-ops/blockable';
import { leakyBucketStep } from './leaky-bucket.memory';
import { LeakyBucketParams, LeakyBucketState } from './leaky-bucket.model';

/** The leaky bucket, GCRA (`@LeakyBucketLimit`): Lua for Redis, {@link leakyBucketStep} in memory. */
export const leakyBucketCore: LimiterAlgorithm<LeakyBucketParams, void, LeakyBucketState> = {
  commandName: 'limiterLeakyBucket',
  lua: loadLua(__dirname, 'leaky-bucket.lua'),
  paramsArgv: (params) => [String(params.capacity), exactString(params.intervalMicros)],
  step: (state, now, params) => leakyBucketStep(state, now, params),
  limit: (params) => params.capacity,
  denialScope: () => '',
};

/** The same with blocks kept in its key (state-ops.model.ts): what the limits run. */
export const leakyBucket = blockable(leakyBucketCore, 'string');
