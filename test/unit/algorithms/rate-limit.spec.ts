import { rateLimitStep } from '../../../src/algorithms/rate-limit/rate-limit.memory';
import { rateLimitParams } from '../../../src/algorithms/rate-limit/rate-limit.model';
import { SECOND, twinTrace } from './twin-trace';

const take = (permits = 1, timeoutSeconds = 0) => ({
  permits,
  timeoutMicros: timeoutSeconds < 0 ? -1 : timeoutSeconds * SECOND,
});

describe('rateLimit (a token bucket): the model and its memory twin', () => {
  it("follows the design's example: one SMS a minute (rate 1/60, burst 60)", () => {
    const bucket = twinTrace(rateLimitStep, rateLimitParams({ rate: 1 / 60, burst: 60 }));
    expect(bucket.at(0, take())).toBe('A0');
    expect(bucket.at(10, take())).toBe('D0/50s');
    expect(bucket.at(60, take())).toBe('A0');
  });

  it('gives concurrent waiters successive slots, and denies one that would wait too long', () => {
    const bucket = twinTrace(rateLimitStep, rateLimitParams({ rate: 1, burst: 1 }));
    // Guava's R0.00, R1.00, R2.00: each waiter waits one interval more than the one before.
    expect(bucket.at(0, take(1, -1), take(1, -1), take(1, -1))).toBe('A0 A0 w1s A0 w2s');
    // The next slot is at 3 s: 1.5 s of timeout leaves 1.5 s too long.
    expect(bucket.at(0, take(1, 1.5))).toBe('D0/1.5s');
    expect(bucket.at(3, take())).toBe('A0');
  });

  it('saves up to rate * burst permits while idle, and no more', () => {
    const bucket = twinTrace(rateLimitStep, rateLimitParams({ rate: 2, burst: 2 }));
    expect(bucket.at(0, take(4))).toBe('A0');
    expect(bucket.at(1, take(), take(), take())).toBe('A1 A0 D0/0.5s');
    expect(bucket.at(100, take(3), take(2))).toBe('A1 D1/0.5s');
  });

  it('starts a bucket with initialPermits, and keeps state at least `expire` and until full', () => {
    const params = rateLimitParams({ rate: 1, burst: 10, initialPermits: 0, expire: 5 });
    const bucket = twinTrace(rateLimitStep, params);
    expect(bucket.at(0, take())).toBe('D0/1s');
    expect(bucket.lastReset()).toBe('10s'); // empty: 10 s until full
    expect(bucket.ttlFrom(0)).toBe('10s'); // max(expire 5 s, 10 s until full)
    expect(bucket.at(4, take(), take(), take(), take(), take())).toBe('A3 A2 A1 A0 D0/1s');
  });
});
