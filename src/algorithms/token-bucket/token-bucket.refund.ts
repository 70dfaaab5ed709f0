import { LimiterAlgorithm, ttlMsFromMicros } from '../limiter-algorithm';
import { loadLua } from '../lua-source';
import { RefundRequest } from '../state-ops/state-ops.model';
import { tokenBucketCore } from './token-bucket.algorithm';
import { TokenBucketParams, TokenBucketState } from './token-bucket.model';

/** Gives permits back to a token bucket: token-bucket.refund.lua and its twin. */
export const tokenBucketRefund: LimiterAlgorithm<
  TokenBucketParams,
  RefundRequest,
  TokenBucketState
> = {
  commandName: 'limiterTokenBucketRefund',
  lua: loadLua(__dirname, 'token-bucket.refund.lua'),
  paramsArgv: tokenBucketCore.paramsArgv,
  step: (state, now, params, request) => {
    const done = [1, 0, 0, 0, 0] as const;
    if (!state) return { state, ttlMs: null, reply: done };
    const { maxPermits, intervalMicros: interval, expireMicros: expire } = params;
    const fullSpan = maxPermits * interval;
    const emptyAt = Math.max(
      Math.floor(state.emptyAtMicros - request.permits * interval),
      Math.ceil(now - fullSpan),
    );
    if (emptyAt <= now - fullSpan && params.initialPermits >= maxPermits) {
      return { state: undefined, ttlMs: null, reply: done };
    }
    const ttlMs = ttlMsFromMicros(Math.max(expire, emptyAt + fullSpan - now));
    return { state: { emptyAtMicros: emptyAt }, ttlMs, reply: done };
  },
  limit: tokenBucketCore.limit,
};
