import { LimiterAlgorithm } from '../limiter-algorithm';
import { luaNameOf } from '../lua-source';
import { stateOps } from '../state-ops/state-ops';
import { RefundRequest } from '../state-ops/state-ops.model';
import { tokenBucket, tokenBucketCore } from './token-bucket.algorithm';
import { tokenBucketStep } from './token-bucket.memory';
import { TokenBucketParams, TokenBucketRequest, TokenBucketState } from './token-bucket.model';
import { tokenBucketRefund } from './token-bucket.refund';

/** A charge is an acquire that waits as long as it takes (timeout < 0): it never fails. */
const forced = ({ permits }: RefundRequest): TokenBucketRequest => ({ permits, timeoutMicros: -1 });

/**
 * Takes permits whatever the bucket holds: the acquire of token-bucket.lua with no timeout,
 * so a cost above what is stored moves E (the moment the bucket is empty) past now. That is
 * the debt: later requests wait, or are denied, until the refill has repaid it.
 */
const tokenBucketCharge: LimiterAlgorithm<TokenBucketParams, RefundRequest, TokenBucketState> = {
  ...tokenBucketCore,
  commandName: 'limiterTokenBucketCharge',
  // The acquire's own function, under a command of its own.
  luaName: luaNameOf(tokenBucketCore),
  requestArgv: (request) => tokenBucketCore.requestArgv!(forced(request)),
  step: (state, now, params, request) => tokenBucketStep(state, now, params, forced(request)),
};

/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const tokenBucketOps = stateOps(tokenBucket, 'string', tokenBucketRefund, tokenBucketCharge);
