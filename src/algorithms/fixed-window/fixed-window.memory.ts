import { MemoryStep } from '../limiter-algorithm';
import { FixedWindowParams, FixedWindowState } from './fixed-window.model';

/** The TypeScript twin of fixed-window.lua; the memory store drops the state at window end. */
export function fixedWindowStep(
  state: FixedWindowState | undefined,
  now: number,
  params: FixedWindowParams,
): MemoryStep<FixedWindowState> {
  const { limit, periodMs } = params;
  const windowEndMicros = state ? state.windowEndMicros : now + periodMs * 1000;
  const count = (state ? state.count : 0) + 1;
  // Whole milliseconds left, as PTTL reports them.
  const ttlMs = state ? Math.max(0, Math.round((windowEndMicros - now) / 1000)) : periodMs;
  const next = { count, windowEndMicros };
  const keepMs = (windowEndMicros - now) / 1000;
  if (count <= limit) {
    return { state: next, ttlMs: keepMs, reply: [1, limit - count, ttlMs * 1000, 0, 0] };
  }
  return { state: next, ttlMs: keepMs, reply: [0, 0, ttlMs * 1000, ttlMs * 1000, 0] };
}
