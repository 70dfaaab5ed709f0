import { Decision, MemoryStore, RateLimiterFactory } from '../../src';
import { useFactoryOnStore } from '../helpers/factory-on-store';

/** A limit of 10 on one key, as each algorithm's factory limiter makes it: `decide(permits)`. */
type Decide = (permits: number) => Promise<Decision>;

const LIMITS: [string, (factory: RateLimiterFactory, key: string) => Decide][] = [
  [
    // A bucket of 10 that refills one permit an hour: negligible within the test.
    'token bucket',
    (f, key) => {
      const limiter = f.rateLimiter({ key, rate: 1 / 3600, burst: 36_000 });
      return (permits) => limiter.decide(permits);
    },
  ],
  [
    'fixed window',
    (f, key) => {
      const limiter = f.countLimiter({ key, limit: 10, period: 3600 });
      return (permits) => limiter.decide(permits);
    },
  ],
  [
    'sliding log',
    (f, key) => {
      const limiter = f.slidingWindowLimiter({ key, limit: 10, window: 3600 });
      return (permits) => limiter.decide(permits);
    },
  ],
  [
    'approximate sliding window',
    (f, key) => {
      const limiter = f.slidingWindowLimiter({ key, limit: 10, window: 3600, approximate: true });
      return (permits) => limiter.decide(permits);
    },
  ],
  [
    'leaky bucket',
    (f, key) => {
      const limiter = f.leakyBucketLimiter({ key, capacity: 10, rate: 1 / 3600 });
      return (permits) => limiter.decide(permits);
    },
  ],
  [
    // Slots held: nothing is released during the test.
    'concurrency',
    (f, key) => {
      const limiter = f.concurrencyLimiter({ key, max: 10, lease: 3600 });
      let n = 0;
      return (permits) => limiter.decide(`r${++n}`, permits);
    },
  ],
];

describe.each(['redis', 'memory'] as const)(
  'permits on every algorithm (%s store)',
  (storeName) => {
    const env = useFactoryOnStore(storeName);
    let run = 0;

    /** Keys in the store (Redis) or held in memory. */
    const keyCount = async () =>
      env.client ? (await env.client.keys('*')).length : (env.store as MemoryStore).size;

    it.each(LIMITS)('%s: 4, 4, 4, 2, 1 on a limit of 10', async (_name, make) => {
      const decide = make(env.factory, `permits:${++run}`);
      const decisions: Decision[] = [];
      for (const permits of [4, 4, 4, 2, 1]) decisions.push(await decide(permits));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, false, true, false]);
      // A denial takes nothing and says what is left: 2 after 8, 0 after 10.
      expect(decisions.map((d) => d.remaining)).toEqual([6, 2, 2, 0, 0]);
      expect(decisions[2].retryAfterMs).toBeGreaterThan(0);
    });

    it.each(LIMITS)('%s: 0 permits peeks and writes nothing', async (_name, make) => {
      const before = await keyCount();
      const decide = make(env.factory, `peek:${++run}`);
      expect(await decide(0)).toMatchObject({ allowed: true, remaining: 10, retryAfterMs: 0 });
      expect(await keyCount()).toBe(before);
      await decide(3);
      expect(await decide(0)).toMatchObject({ allowed: true, remaining: 7 });
      expect(await decide(0)).toMatchObject({ allowed: true, remaining: 7 });
      expect(await keyCount()).toBe(before + 1);
    });

    it.each(LIMITS)(
      '%s: 0 permits passes only while there is room for one, and writes nothing',
      async (_name, make) => {
        const decide = make(env.factory, `zero:${++run}`);
        await decide(9);
        expect(await decide(0)).toMatchObject({ allowed: true, remaining: 1, retryAfterMs: 0 });
        await decide(1);
        const before = await keyCount();
        const denied = await decide(0);
        expect(denied).toMatchObject({ allowed: false, remaining: 0 });
        // Told when one permit could pass, as a request of 1 is (a moment later, by the clock).
        const one = await decide(1);
        expect(one).toMatchObject({ allowed: false, remaining: 0 });
        expect(denied.retryAfterMs).toBeGreaterThan(0);
        expect(Math.abs(denied.retryAfterMs - one.retryAfterMs)).toBeLessThan(1000);
        expect(await keyCount()).toBe(before);
      },
    );

    it.each(LIMITS)(
      '%s: 11 permits on a limit of 10 can never pass: denied, -1, nothing written',
      async (_name, make) => {
        const before = await keyCount();
        const decide = make(env.factory, `never:${++run}`);
        expect(await decide(11)).toMatchObject({ allowed: false, remaining: 10, retryAfterMs: -1 });
        expect(await keyCount()).toBe(before);
        await decide(3);
        expect(await decide(11)).toMatchObject({ allowed: false, remaining: 7, retryAfterMs: -1 });
        // The 7 left are still there.
        expect(await decide(7)).toMatchObject({ allowed: true, remaining: 0 });
      },
    );

    it('rejects permits that are not an integer >= 0, naming the limiter', async () => {
      const counter = env.factory.countLimiter({ key: 'bad', limit: 10, period: 1 });
      await expect(counter.decide(-1)).rejects.toThrow(
        "countLimiter: option 'permits' must be an integer >= 0, got -1",
      );
      await expect(counter.tryAcquire(1.5)).rejects.toThrow(
        "countLimiter: option 'permits' must be an integer >= 0, got 1.5",
      );
      const bucket = env.factory.leakyBucketLimiter({ key: 'bad', capacity: 10, rate: 1 });
      await expect(bucket.decide(NaN)).rejects.toThrow(
        "leakyBucketLimiter: option 'permits' must be an integer >= 0, got NaN",
      );
    });
  },
);
