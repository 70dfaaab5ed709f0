import { RateLimiterFactory } from '../../src';
import { useFactoriesOnClock } from '../helpers/factories-on-clock';

/**
 * `peek()` on a key nothing has used, or that has fully recovered, reports the limit whole
 * and nothing to wait for: `resetMs` 0 (not the reset a request taken now would cause), on
 * every algorithm, the Lua and the memory twin alike.
 */
describe('peek on a fresh or recovered key', () => {
  const clock = useFactoriesOnClock(1_000_000);
  const { stores } = clock;

  const limiters = (factory: RateLimiterFactory, key: string) => ({
    tokenBucket: factory.rateLimiter({ key, rate: 1, burst: 5 }),
    fixedWindow: factory.countLimiter({ key, limit: 5, period: 60 }),
    slidingLog: factory.slidingWindowLimiter({ key, limit: 5, window: 60 }),
    approximate: factory.slidingWindowLimiter({ key, limit: 5, window: 60, approximate: true }),
    leakyBucket: factory.leakyBucketLimiter({ key, capacity: 5, rate: 1 }),
    concurrency: factory.concurrencyLimiter({ key, max: 5, lease: 60 }),
  });
  const fresh = { limit: 5, remaining: 5, resetMs: 0, blockedMs: 0 };

  describe.each(stores)('%s', (_, factoryOf) => {
    it('reports resetMs 0 on a key nothing has used, for every algorithm', async () => {
      const all = limiters(factoryOf(), 'fresh');
      const states: Record<string, unknown> = {};
      for (const [name, limiter] of Object.entries(all)) states[name] = await limiter.peek();
      expect(states).toEqual({
        tokenBucket: fresh,
        fixedWindow: fresh,
        slidingLog: fresh,
        approximate: fresh,
        leakyBucket: fresh,
        concurrency: fresh,
      });
    });

    it('reports resetMs 0 once a used token bucket and leaky bucket have fully recovered', async () => {
      const { tokenBucket, leakyBucket } = limiters(factoryOf(), 'recovered');
      expect(await tokenBucket.tryAcquire()).toBe(true);
      expect(await leakyBucket.tryAcquire()).toBe(true);
      expect([(await tokenBucket.peek()).remaining, (await leakyBucket.peek()).remaining]).toEqual([
        4, 4,
      ]);
      clock.nowMs += 1000;
      expect([await tokenBucket.peek(), await leakyBucket.peek()]).toEqual([fresh, fresh]);
    });
  });
});
