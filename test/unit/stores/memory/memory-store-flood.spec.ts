import { MemoryStore, RateLimiterFactory } from '../../../../src';

describe('MemoryStore under a flood of other keys', () => {
  it('never evicts a denial of another limit: 5,000 search keys leave the SMS limit denied', async () => {
    let nowMs = 0;
    const store = new MemoryStore({ now: () => nowMs, maxKeys: 1_000 });
    const factory = new RateLimiterFactory(store);
    const sms = factory.countLimiter({ key: 'sms:+15550001111', limit: 1, period: 3600 });
    expect(await sms.tryAcquire()).toBe(true);
    expect(await sms.tryAcquire()).toBe(false);
    for (let i = 0; i < 5_000; i++) {
      nowMs += 1;
      await factory.countLimiter({ key: `search:${i}`, limit: 100, period: 60 }).tryAcquire();
    }
    expect(store.size).toBe(1_000);
    expect(await sms.decide()).toMatchObject({ allowed: false });
    // The flooding limit lost its own oldest keys, and kept its newest.
    const newest = factory.countLimiter({ key: 'search:4999', limit: 100, period: 60 });
    expect(await newest.decide()).toMatchObject({ allowed: true, remaining: 98 });
    const oldest = factory.countLimiter({ key: 'search:0', limit: 100, period: 60 });
    expect(await oldest.decide()).toMatchObject({ allowed: true, remaining: 99 });
  });

  it('shares the bound fairly: the limit holding the most keys gives one up', async () => {
    const store = new MemoryStore({ maxKeys: 10 });
    const factory = new RateLimiterFactory(store);
    const bucket = (key: string) => factory.rateLimiter({ key, rate: 1 / 3600, burst: 3600 });
    for (let i = 0; i < 4; i++) expect(await bucket(`user:${i}`).tryAcquire()).toBe(true);
    for (let i = 0; i < 100; i++) {
      await factory.slidingWindowLimiter({ key: `ip:${i}`, limit: 5, window: 60 }).tryAcquire();
    }
    expect(store.size).toBe(10);
    // Each bucket still remembers its one permit an hour is spent.
    for (let i = 0; i < 4; i++) expect(await bucket(`user:${i}`).tryAcquire()).toBe(false);
  });

  it('a flood on one limit evicts the least recently used keys of that limit first', async () => {
    const store = new MemoryStore({ maxKeys: 3 });
    const factory = new RateLimiterFactory(store);
    const count = (key: string) => factory.countLimiter({ key, limit: 1, period: 60 });
    for (const key of ['a', 'b', 'c']) await count(key).tryAcquire();
    await count('a').decide(); // a is now the most recently used
    await count('d').tryAcquire(); // evicts b
    expect([
      (await count('a').decide()).allowed,
      (await count('c').decide()).allowed,
      (await count('d').decide()).allowed,
    ]).toEqual([false, false, false]);
    expect(store.size).toBe(3);
    expect((await count('b').decide()).allowed).toBe(true); // b started afresh
  });
});
