import { RateLimiterFactory } from '../../src';
import { useFactoryOnStore } from '../helpers/factory-on-store';

/** A limit of 2 on one key, as each algorithm's factory limiter makes it. */
interface Limit {
  tryAcquire(): Promise<boolean>;
  refund(permits?: number): Promise<void>;
}

const LIMITS: [string, (factory: RateLimiterFactory, key: string) => Limit][] = [
  // Refills one permit an hour: negligible within the test.
  ['token bucket', (f, key) => f.rateLimiter({ key, rate: 1 / 3600, burst: 7200 })],
  ['fixed window', (f, key) => f.countLimiter({ key, limit: 2, period: 3600 })],
  ['sliding log', (f, key) => f.slidingWindowLimiter({ key, limit: 2, window: 3600 })],
  [
    'approximate sliding window',
    (f, key) => f.slidingWindowLimiter({ key, limit: 2, window: 3600, approximate: true }),
  ],
  ['leaky bucket', (f, key) => f.leakyBucketLimiter({ key, capacity: 2, rate: 1 / 3600 })],
];

/** A denied request keeps nothing, on every algorithm, so a refund is exact. */
describe.each(['redis', 'memory'] as const)('a denial writes no count (%s store)', (storeName) => {
  const env = useFactoryOnStore(storeName);
  let run = 0;

  const attempts = async (limit: Limit, count: number) => {
    const results: boolean[] = [];
    for (let i = 0; i < count; i++) results.push(await limit.tryAcquire());
    return results;
  };

  it.each(LIMITS)(
    '%s: after 2 allowed and 2 denied on a limit of 2, refund(1) gives exactly one back',
    async (_name, make) => {
      const limit = make(env.factory, `denials:${++run}`);
      expect(await attempts(limit, 4)).toEqual([true, true, false, false]);
      await limit.refund(1);
      expect(await attempts(limit, 2)).toEqual([true, false]);
    },
  );

  it('fixed window: the counter holds what was allowed, not what was asked', async () => {
    const limit = env.factory.countLimiter({ key: 'denials:counter', limit: 2, period: 3600 });
    expect(await attempts(limit, 5)).toEqual([true, true, false, false, false]);
    expect(await limit.peek()).toMatchObject({ remaining: 0 });
    if (env.client) expect(await env.client.get('countLimit:denials:counter')).toBe('2');
  });

  it('concurrency: 2 slots held and 2 denied; one released lets exactly one more in', async () => {
    const limiter = env.factory.concurrencyLimiter({ key: 'denials:slots', max: 2, lease: 3600 });
    const slots = [];
    for (let i = 0; i < 4; i++) slots.push(await limiter.tryAcquire());
    expect(slots.map((slot) => slot !== null)).toEqual([true, true, false, false]);
    await slots[0]!.release();
    expect((await limiter.tryAcquire()) !== null).toBe(true);
    expect(await limiter.tryAcquire()).toBeNull();
  });
});
