import { stateOps } from '../state-ops/state-ops';
import { tokenBucket } from './token-bucket.algorithm';
import { tokenBucketRefund } from './token-bucket.refund';

/** Peek, reset, block and refund on a key of this algorithm (state-ops.model.ts). */
export const tokenBucketOps = stateOps(tokenBucket, 'string', tokenBucketRefund);
