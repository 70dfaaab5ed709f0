import { NEVER_MICROS } from '../decision';
import { MemoryStep } from '../limiter-algorithm';
import { permitsOf, PermitsRequest } from '../permits';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** The TypeScript twin of fixed-window.lua; the memory store drops the state at window end. */
export function fixedWindowStep(
  state: FixedWindowState | undefined,
  now: number,
  params: FixedWindowParams,
  request: PermitsRequest | undefined,
): MemoryStep<FixedWindowState> {
  const { limit, periodMs } = params;
  const permits = permitsOf(request);
  const count = state ? state.count : 0;
  // Whole milliseconds left, as PTTL reports them.
  const ttlMs = state ? Math.max(0, Math.round((state.windowEndMicros - now) / 1000)) : 0;
  const remaining = Math.max(0, limit - count);
  if (permits > limit) {
    return { state, ttlMs: null, reply: [0, remaining, ttlMs * 1000, NEVER_MICROS, 0] };
  }
  if (count + permits > limit) {
    return { state, ttlMs: null, reply: [0, remaining, ttlMs * 1000, ttlMs * 1000, 0] };
  }
  if (permits === 0) return { state, ttlMs: null, reply: [1, remaining, ttlMs * 1000, 0, 0] };
  if (count === 0) {
    return {
      state: { count: permits, windowEndMicros: now + periodMs * 1000 },
      ttlMs: periodMs,
      reply: [1, limit - permits, periodMs * 1000, 0, 0],
    };
  }
  const windowEndMicros = state!.windowEndMicros;
  return {
    state: { count: count + permits, windowEndMicros },
    ttlMs: (windowEndMicros - now) / 1000,
    reply: [1, limit - count - permits, ttlMs * 1000, 0, 0],
  };
}
