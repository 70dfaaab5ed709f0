import { LimiterAlgorithm, ttlMsFromMicros } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { leakyBucketCore } from './leaky-bucket.algorithm';
import { LeakyBucketParams, LeakyBucketState } from './leaky-bucket.model';

/** Adds requests to a leaky bucket, into debt if need be: leaky-bucket.charge.lua and its twin. */
export const leakyBucketCharge: LimiterAlgorithm<
  LeakyBucketParams,
  RefundRequest,
  LeakyBucketState
> = {
  commandName: 'limiterLeakyBucketCharge',
  lua: loadLua(__dirname, 'leaky-bucket.charge.lua'),
  paramsArgv: leakyBucketCore.paramsArgv,
  step: (state, now, params, request) => {
    const from = state ? Math.max(now, state.tatMicros) : now;
    const tat = from + request.permits * params.intervalMicros;
    return {
      state: { tatMicros: tat },
      ttlMs: ttlMsFromMicros(tat - now),
      reply: [1, 0, 0, 0, 0],
    };
  },
  limit: leakyBucketCore.limit,
};
