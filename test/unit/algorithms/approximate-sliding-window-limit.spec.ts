import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
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

  it('firstElapsedWithRoom is exact whole-number math, up to limit * window = 2^53 and in debt', () => {
    const exact = (weight: bigint, room: bigint, window: bigint): bigint => {
      if (weight <= 0n) return 0n;
      const span = (room * window) / weight;
      return span >= window ? 0n : window - span;
    };
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
        (window, limit, share, weight) => {
          // The largest limit whose limit * window stays a whole double, as the ranges keep it.
          const room = Math.floor(
            share * Math.min(limit, Math.floor(Number.MAX_SAFE_INTEGER / window)),
          );
          const e = firstElapsedWithRoom(weight, room, window);
          expect(BigInt(e)).toBe(exact(BigInt(weight), BigInt(room), BigInt(window)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('answers a denial at once whatever the window, 2^53 µs and beyond (no search loop)', () => {
    // A year written in ms, read as seconds: 31,536,000,000 s; the search this replaced never
    // ended there (its one-µs steps vanish in doubles that large).
    for (const windowMicros of [2 ** 53, 31_536_000_000 * SECOND, 1e300]) {
      const params = { limit: 1, windowMicros };
      const now = 1_700_000_000_000_000;
      const denied = runInNewContext(
        'decide()',
        {
          decide: () => {
            const first = approximateSlidingWindowLimitStep(undefined, now, params, ONE);
            return approximateSlidingWindowLimitStep(first.state, now, params, ONE);
          },
        },
        { timeout: 2000 },
      );
      expect(denied.reply[0]).toBe(0);
      expect(denied.reply[3]).toBeGreaterThan(0);
    }
  });
});
