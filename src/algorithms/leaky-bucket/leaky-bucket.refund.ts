import { LimiterAlgorithm, ttlMsFromMicros } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { leakyBucketCore } from './leaky-bucket.algorithm';
import { LeakyBucketParams, LeakyBucketState } from './leaky-bucket.model';

/** Gives requests back to a leaky bucket: leaky-bucket.refund.lua and its twin. */
export const leakyBucketRefund: LimiterAlgorithm<
  LeakyBucketParams,
  RefundRequest,
  LeakyBucketState
> = {
  commandName: 'limiterLeakyBucketRefund',
  lua: loadLua(__dirname, 'leaky-bucket.refund.lua'),
  paramsArgv: leakyBucketCore.paramsArgv,
  step: (state, now, params, request) => {
    const done = [1, 0, 0, 0, 0] as const;
    if (!state) return { state, ttlMs: null, reply: done };
    const tat = Math.max(now, state.tatMicros - request.permits * params.intervalMicros);
    if (tat <= now) return { state: undefined, ttlMs: null, reply: done };
    return { state: { tatMicros: tat }, ttlMs: ttlMsFromMicros(tat - now), reply: done };
  },
  limit: leakyBucketCore.limit,
};
