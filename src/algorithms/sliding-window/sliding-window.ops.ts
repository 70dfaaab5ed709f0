import { stateOps } from '../state-ops/state-ops';
import { slidingWindow } from './sliding-window.algorithm';
import { slidingWindowCharge } from './sliding-window.charge';
import { slidingWindowRefund } from './sliding-window.refund';

/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const slidingWindowOps = stateOps(
  slidingWindow,
  'zset',
  slidingWindowRefund,
  slidingWindowCharge,
);
