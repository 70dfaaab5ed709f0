import { stateOps } from '../state-ops/state-ops';
import { slidingWindow } from './sliding-window.algorithm';
import { slidingWindowRefund } from './sliding-window.refund';

/** Peek, reset, block and refund on a key of this algorithm (state-ops.model.ts). */
export const slidingWindowOps = stateOps(slidingWindow, 'zset', slidingWindowRefund);
