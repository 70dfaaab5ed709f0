import { stateOps } from '../state-ops/state-ops';
import { approximateSlidingWindow } from './approximate-sliding-window.algorithm';
import { approximateSlidingWindowCharge } from './approximate-sliding-window.charge';
import { approximateSlidingWindowRefund } from './approximate-sliding-window.refund';

/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const approximateSlidingWindowOps = stateOps(
  approximateSlidingWindow,
  'string',
  approximateSlidingWindowRefund,
  approximateSlidingWindowCharge,
);
