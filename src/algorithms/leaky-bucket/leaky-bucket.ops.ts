import { stateOps } from '../state-ops/state-ops';
import { leakyBucket } from './leaky-bucket.algorithm';
import { leakyBucketCharge } from './leaky-bucket.charge';
import { leakyBucketRefund } from './leaky-bucket.refund';

/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const leakyBucketOps = stateOps(leakyBucket, 'string', leakyBucketRefund, leakyBucketCharge);
