import { stateOps } from '../state-ops/state-ops';
import { leakyBucket } from './leaky-bucket.algorithm';
import { leakyBucketRefund } from './leaky-bucket.refund';

/** Peek, reset, block and refund on a key of this algorithm (state-ops.model.ts). */
export const leakyBucketOps = stateOps(leakyBucket, 'string', leakyBucketRefund);
