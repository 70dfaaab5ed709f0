import { useFactoriesOnClock } from '../helpers/factories-on-clock';

/**
 * `peek()` on a key partly used reports the state as it stands: `resetMs` is the time until
 * it is fully recovered, not counting a request of its own, on every algorithm,
 * the Lua and the memory twin alike. Limits of 5; the stores' clock is `clock.nowMs`.
 */
describe('peek on a partly used key', () => {
  const clock = useFactoriesOnClock(1_000_000);
  const { stores } = clock;
  // 1,000 s: the approximate window's 60 s windows start at 960 s and 1,020 s.
  beforeEach(() => (clock.nowMs = 1_000_000));

  describe.each(stores)('%s', (_, factoryOf) => {
    it('token bucket: the time until the bucket is full again', async () => {
      const bucket = factoryOf().rateLimiter({ key: 'tb', rate: 1, burst: 5 });
      expect(await bucket.tryAcquire({ permits: 2 })).toBe(true);
      clock.nowMs += 500;
      // 3.5 permits stored: 1.5 s to full (a trial permit would make it 2.5 s).
      expect(await bucket.peek()).toEqual({ limit: 5, remaining: 3, resetMs: 1500, blockedMs: 0 });
    });

    it('leaky bucket: the time until the bucket has drained', async () => {
      const bucket = factoryOf().leakyBucketLimiter({ key: 'lb', capacity: 5, rate: 1 });
      expect(await bucket.tryAcquire(2)).toBe(true);
      clock.nowMs += 500;
      expect(await bucket.peek()).toEqual({ limit: 5, remaining: 3, resetMs: 1500, blockedMs: 0 });
    });

    it('sliding log: the time until the newest request leaves the window', async () => {
      const log = factoryOf().slidingWindowLimiter({ key: 'sw', limit: 5, window: 60 });
      expect(await log.tryAcquire()).toBe(true);
      clock.nowMs += 10_000;
      expect(await log.tryAcquire()).toBe(true);
      clock.nowMs += 10_000;
      // The newest leaves at +70 s: 50 s from now (a trial request would say the full 60 s).
      expect(await log.peek()).toEqual({ limit: 5, remaining: 3, resetMs: 50_000, blockedMs: 0 });
    });

    it('approximate window: the end of the window in which the counts stop weighing', async () => {
      const options = { key: 'asw', limit: 5, window: 60, approximate: true };
      const window = factoryOf().slidingWindowLimiter(options);
      expect(await window.tryAcquire(2)).toBe(true);
      // This window's count weighs until the end of the next one, at 1,080 s.
      expect(await window.peek()).toEqual({
        limit: 5,
        remaining: 3,
        resetMs: 80_000,
        blockedMs: 0,
      });
      clock.nowMs = 1_030_000;
      // Only the previous window's 2 weigh now (2 * 50/60): until this window ends at 1,080 s.
      expect(await window.peek()).toEqual({
        limit: 5,
        remaining: 3,
        resetMs: 50_000,
        blockedMs: 0,
      });
    });

    it('concurrency: the time until the last lease expires', async () => {
      const limiter = factoryOf().concurrencyLimiter({ key: 'cc', max: 5, lease: 60 });
      expect(await limiter.tryAcquire()).not.toBeNull();
      clock.nowMs += 10_000;
      expect(await limiter.tryAcquire()).not.toBeNull();
      clock.nowMs += 10_000;
      expect(await limiter.peek()).toEqual({
        limit: 5,
        remaining: 3,
        resetMs: 50_000,
        blockedMs: 0,
      });
    });

    it('a blocked key: not before both the block and the state are over', async () => {
      const log = factoryOf().slidingWindowLimiter({ key: 'blocked', limit: 5, window: 60 });
      expect(await log.tryAcquire()).toBe(true);
      await log.block(10);
      clock.nowMs += 1000;
      // The request leaves the window in 59 s, after the block's 9 s.
      expect(await log.peek()).toEqual({
        limit: 5,
        remaining: 0,
        resetMs: 59_000,
        blockedMs: 9000,
      });
      await log.block(120);
      expect(await log.peek()).toEqual({
        limit: 5,
        remaining: 0,
        resetMs: 120_000,
        blockedMs: 120_000,
      });
    });
  });

  it('fixed window: the time left in the window, on Redis its key TTL', async () => {
    const counter = stores[0][1]().countLimiter({ key: 'fw', limit: 5, period: 60 });
    expect(await counter.tryAcquire(2)).toBe(true);
    const { resetMs, ...rest } = await counter.peek();
    expect(rest).toEqual({ limit: 5, remaining: 3, blockedMs: 0 });
    // Redis's own clock times the window: a few ms have passed.
    expect(resetMs).toBeGreaterThan(55_000);
    expect(resetMs).toBeLessThanOrEqual(60_000);
  });

  it('fixed window in memory: the time left in the window', async () => {
    const counter = stores[1][1]().countLimiter({ key: 'fw', limit: 5, period: 60 });
    expect(await counter.tryAcquire(2)).toBe(true);
    clock.nowMs += 20_000;
    expect(await counter.peek()).toEqual({
      limit: 5,
      remaining: 3,
      resetMs: 40_000,
      blockedMs: 0,
    });
  });
});
