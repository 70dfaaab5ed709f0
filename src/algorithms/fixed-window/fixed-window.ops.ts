import { stateOps } from '../state-ops/state-ops';
import { fixedWindow } from './fixed-window.algorithm';
import { fixedWindowRefund } from './fixed-window.refund';

/** Peek, reset, block and refund on a key of this algorithm (state-ops.model.ts). */
export const fixedWindowOps = stateOps(fixedWindow, 'string', fixedWindowRefund);
