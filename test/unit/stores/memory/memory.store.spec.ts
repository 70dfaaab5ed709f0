import { MemoryStore, RateLimiterFactory } from '../../../../src';

describe('MemoryStore memory bounds', () => {
  it('drops expired state: 1,000 finished windows leave nothing behind', async () => {
    let nowMs = 0;
    const store = new MemoryStore({ now: () => nowMs });
    const factory = new RateLimiterFactory(store);
    for (let i = 0; i < 1_000; i++)
      await factory.countLimiter({ key: `k${i}`, limit: 1, period: 1 }).tryAcquire();
    expect(store.size).toBe(1_000);
    nowMs += 11_000; // past every window and the sweep interval
    await factory.countLimiter({ key: 'fresh', limit: 1, period: 1 }).tryAcquire();
    expect(store.size).toBe(1);
  });

  it('never holds more than maxKeys', async () => {
    const store = new MemoryStore({ maxKeys: 100 });
    const factory = new RateLimiterFactory(store);
    for (let i = 0; i < 1_000; i++)
      await factory.countLimiter({ key: `k${i}`, limit: 1, period: 60 }).tryAcquire();
    expect(store.size).toBe(100);
  });

  it('keeps live state: a denied key stays denied until its window ends', async () => {
    let nowMs = 0;
    const factory = new RateLimiterFactory(new MemoryStore({ now: () => nowMs }));
    const limiter = factory.countLimiter({ key: 'k', limit: 1, period: 10 });
    expect(await limiter.tryAcquire()).toBe(true);
    nowMs += 9_999;
    expect(await limiter.decide()).toMatchObject({ allowed: false, retryAfterMs: 1 });
    nowMs += 1;
    expect(await limiter.tryAcquire()).toBe(true);
  });
});
