import { AdjustmentStep } from '../state-ops/state-ops.model';
import { NEVER_MICROS } from '../../contracts/decision';
import { MemoryStep, ttlMsFromMicros } from '../limiter-algorithm';
import {
  ApproximateSlidingWindowLimitParams,
  ApproximateSlidingWindowLimitRequest,
  ApproximateSlidingWindowLimitState,
  firstElapsedWithRoom,
  rollForward,
} from './approximate-sliding-window-limit.model';

/** A refund's or a charge's twin on this algorithm's state. */
type Adjustment = AdjustmentStep<
  ApproximateSlidingWindowLimitParams,
  ApproximateSlidingWindowLimitState
>;

/** The TypeScript twin of approximate-sliding-window-limit.lua, to the µs. */
export function approximateSlidingWindowLimitStep(
  state: ApproximateSlidingWindowLimitState | undefined,
  now: number,
  params: ApproximateSlidingWindowLimitParams,
  request: ApproximateSlidingWindowLimitRequest,
): MemoryStep<ApproximateSlidingWindowLimitState> {
  const { limit, windowMicros: window } = params;
  const { permits: asked } = request;
  const index = Math.floor(now / window);
  const elapsed = now - index * window;
  const { curr, prev } = rollForward(state, index);
  // The estimate, multiplied by the window: whole numbers only.
  const used = prev * (window - elapsed) + curr * window;
  // A decision that writes nothing: when the counts stop weighing, and what is left.
  const resetAsIs =
    curr > 0 ? (index + 2) * window - now : prev > 0 ? (index + 1) * window - now : 0;
  const remainingAsIs = Math.max(0, Math.floor((limit * window - used) / window));

  if (asked > limit) {
    return { state, ttlMs: null, reply: [0, remainingAsIs, resetAsIs, NEVER_MICROS, 0] };
  }
  if (asked === 0 && used + window <= limit * window) {
    return { state, ttlMs: null, reply: [1, remainingAsIs, resetAsIs, 0, 0] };
  }
  // A request of 0 without room for one is denied as one of 1 would be (it takes nothing).
  const permits = Math.max(asked, 1);

  if (used + permits * window <= limit * window) {
    const reset = (index + 2) * window - now;
    const remaining = Math.floor((limit * window - used - permits * window) / window);
    return {
      state: { index, curr: curr + permits, prev },
      ttlMs: ttlMsFromMicros(reset),
      reply: [1, remaining, reset, 0, 0],
    };
  }

  const retryAfter =
    curr + permits <= limit
      ? firstElapsedWithRoom(prev, limit - curr - permits, window) - elapsed
      : window - elapsed + firstElapsedWithRoom(curr, limit - permits, window);
  return { state, ttlMs: null, reply: [0, remainingAsIs, resetAsIs, retryAfter, 0] };
}

/** The twin of approximate-sliding-window-limit.refund.lua. */
export const approximateSlidingWindowLimitRefundStep: Adjustment = (
  state,
  now,
  params,
  request,
  expiresAt,
) => {
  const done = [1, 0, 0, 0, 0] as const;
  if (!state) return { state, ttlMs: null, reply: done };
  const window = params.windowMicros;
  const left = request.resetLeftMicros;
  const index =
    left === undefined
      ? Math.floor(now / window)
      : Math.floor((now + Math.round(left)) / window + 0.5) - 2;
  let { curr, prev } = state;
  if (index === state.index) curr = Math.max(0, curr - request.permits);
  else if (index === state.index - 1) prev = Math.max(0, prev - request.permits);
  else return { state, ttlMs: null, reply: done };
  if (curr === 0 && prev === 0) return { state: undefined, ttlMs: null, reply: done };
  return {
    state: { index: state.index, curr, prev },
    ttlMs: (expiresAt! - now) / 1000,
    reply: done,
  };
};

/** The twin of the charge, the acquire without its limit (approximate-sliding-window-limit.lua). */
export const approximateSlidingWindowLimitChargeStep: Adjustment = (
  state,
  now,
  params,
  request,
) => ({
  ...approximateSlidingWindowLimitStep(state, now, { ...params, limit: Infinity }, request),
  reply: [1, 0, 0, 0, 0],
});
