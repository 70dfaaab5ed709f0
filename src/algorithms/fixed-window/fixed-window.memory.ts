import { NEVER_MICROS } from '../../contracts/decision';
import { MemoryStep } from '../limiter-algorithm';
import { permitsOf, PermitsRequest } from '../permits';
import { AdjustmentStep } from '../state-ops/state-ops.model';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** A refund's or a charge's twin on this algorithm's state. */
type Adjustment = AdjustmentStep<FixedWindowParams, FixedWindowState>;

/** The TypeScript twin of fixed-window.lua; the memory store drops the state at window end. */
export function fixedWindowStep(
  state: FixedWindowState | undefined,
  now: number,
  params: FixedWindowParams,
  request: PermitsRequest | undefined,
): MemoryStep<FixedWindowState> {
  const { limit, periodMs } = params;
  const permits = permitsOf(request);
  const live = liveWindow(state, now);
  const count = live ? live.count : 0;
  // The time left in the window, from the end the counter keeps.
  const left = live ? live.windowEndMicros - now : 0;
  const remaining = Math.max(0, limit - count);
  if (permits > limit) {
    return { state, ttlMs: null, reply: [0, remaining, left, NEVER_MICROS, 0] };
  }
  if (count + permits > limit) {
    return { state, ttlMs: null, reply: [0, remaining, left, left, 0] };
  }
  if (permits === 0) return { state, ttlMs: null, reply: [1, remaining, left, 0, 0] };
  if (count === 0) {
    return {
      state: { count: permits, windowEndMicros: now + periodMs * 1000 },
      ttlMs: periodMs,
      reply: [1, limit - permits, periodMs * 1000, 0, 0],
    };
  }
  const windowEndMicros = live!.windowEndMicros;
  return {
    state: { count: count + permits, windowEndMicros },
    ttlMs: left / 1000,
    reply: [1, limit - count - permits, left, 0, 0],
  };
}

/** The state while its window lasts: a counter past its end counts as none (fixed-window.window.lua). */
function liveWindow(state: FixedWindowState | undefined, now: number) {
  return state && state.windowEndMicros > now ? state : undefined;
}

/** The twin of fixed-window.refund.lua: takes permits off the acquire's window. */
export const fixedWindowRefundStep: Adjustment = (state, now, params, request) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!liveWindow(state, now)) return { state, ttlMs: null, reply: done };
  const left = state!.windowEndMicros - now;
  const expected = request.resetLeftMicros;
  if (
    expected !== undefined &&
    Math.abs(left - Math.round(expected)) * 2 >= params.periodMs * 1000
  ) {
    return { state, ttlMs: null, reply: done };
  }
  const count = state!.count - request.permits;
  if (count <= 0) return { state: undefined, ttlMs: null, reply: done };
  return { state: { ...state!, count }, ttlMs: left / 1000, reply: done };
};

/** The twin of fixed-window.charge.lua: adds permits to the count, into debt if need be. */
export const fixedWindowChargeStep: Adjustment = (state, now, params, request) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!liveWindow(state, now)) {
    const windowEndMicros = now + params.periodMs * 1000;
    return {
      state: { count: request.permits, windowEndMicros },
      ttlMs: params.periodMs,
      reply: done,
    };
  }
  const count = state!.count + request.permits;
  const ttlMs = (state!.windowEndMicros - now) / 1000;
  return { state: { ...state!, count }, ttlMs, reply: done };
};
