import { approximateSlidingWindowLimitStep } from '../../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.memory';
import {
  ApproximateSlidingWindowLimitState,
  firstElapsedWithRoom,
  rollForward,
} from '../../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.model';
import { slidingWindowLimitParams } from '../../../src/algorithms/sliding-window-limit/sliding-window-limit.model';

const SECOND = 1_000_000;
const ONE = { permits: 1 };

/**
 * Runs `count` requests at `atMicros` on the twin and returns a trace such as
 * `A9 A8 D0/5000000`: allowed with remaining, or denied with remaining/retryAfter (µs).
 */
function trace(
  holder: { state?: ApproximateSlidingWindowLimitState },
  atMicros: number,
  count: number,
): string {
  const params = slidingWindowLimitParams({ limit: 10, window: 10 });
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const step = approximateSlidingWindowLimitStep(holder.state, atMicros, params, ONE);
    if (step.ttlMs !== null) holder.state = step.state;
    const [allowed, remaining, , retryAfter] = step.reply;
    out.push(allowed ? `A${remaining}` : `D${remaining}/${retryAfter}`);
  }
  return out.join(' ');
}

describe('approximateSlidingWindowLimit: the model and its memory twin', () => {
  it("follows the design's example, limit 10 a 10 s window, from a boundary", () => {
    const start = 1_700_000_000 * SECOND; // a multiple of 10 s
    const holder: { state?: ApproximateSlidingWindowLimitState } = {};
    // The 11th waits for the boundary, then until 10 * (10 - e) / 10 + 1 <= 10: e = 1 s.
    expect(trace(holder, start, 11)).toBe('A9 A8 A7 A6 A5 A4 A3 A2 A1 A0 D0/11000000');
    expect(trace(holder, start + 10 * SECOND, 1)).toBe('D0/1000000');
    expect(trace(holder, start + 15 * SECOND, 6)).toBe('A4 A3 A2 A1 A0 D0/1000000');
    expect(holder.state).toEqual({ index: 170_000_001, curr: 5, prev: 10 });
    // prev 5: the 6th fits when 5 * (10 - e) / 10 + 5 + 1 <= 10, at e = 2 s.
    expect(trace(holder, start + 20 * SECOND, 6)).toBe('A4 A3 A2 A1 A0 D0/2000000');
  });

  it('keeps the state until the end of the next window, and writes nothing on a denial', () => {
    const params = slidingWindowLimitParams({ limit: 1, window: 10 });
    const at = 1_700_000_003 * SECOND; // 3 s into a window
    const allowed = approximateSlidingWindowLimitStep(undefined, at, params, ONE);
    expect(allowed.ttlMs).toBe(17_000);
    expect(allowed.reply).toEqual([1, 0, 17 * SECOND, 0, 0]);
    const denied = approximateSlidingWindowLimitStep(allowed.state, at + 1, params, ONE);
    expect(denied.ttlMs).toBeNull();
    expect(denied.state).toBe(allowed.state);
    // Spent in this window: wait for the boundary, then until the old count weighs 0.
    expect(denied.reply).toEqual([0, 0, 17 * SECOND - 1, 17 * SECOND - 1, 0]);
  });

  it('rolls the stored window forward: same, next, or older', () => {
    const state = { index: 7, curr: 4, prev: 2 };
    expect(rollForward(state, 7)).toEqual({ curr: 4, prev: 2 });
    expect(rollForward(state, 8)).toEqual({ curr: 0, prev: 4 });
    expect(rollForward(state, 9)).toEqual({ curr: 0, prev: 0 });
    expect(rollForward(undefined, 9)).toEqual({ curr: 0, prev: 0 });
  });

  it('firstElapsedWithRoom is the least e with weight * (window - e) <= room * window', () => {
    for (const window of [1, 7, 1_000, 333_333, 10 * SECOND]) {
      for (const weight of [1, 3, 7, 10, 999]) {
        for (const room of [0, 1, 2, 6, 9]) {
          const e = firstElapsedWithRoom(weight, room, window);
          expect(weight * (window - e)).toBeLessThanOrEqual(room * window);
          if (e > 0) expect(weight * (window - (e - 1))).toBeGreaterThan(room * window);
          expect(e).toBeLessThanOrEqual(window);
        }
      }
    }
  });
});
