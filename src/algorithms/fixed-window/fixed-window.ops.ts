import { stateOps } from '../state-ops/state-ops';
import { fixedWindow } from './fixed-window.algorithm';
import { fixedWindowCharge } from './fixed-window.charge';
import { fixedWindowRefund } from './fixed-window.refund';

/** Peek, reset, block, refund and charge on a key of this algorithm (state-ops.model.ts). */
export const fixedWindowOps = stateOps(fixedWindow, 'string', fixedWindowRefund, fixedWindowCharge);
