import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { counterValue } from '../helpers/counter-value';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('fixed-window counter on real Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let factory: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
    factory = new RateLimiterFactory(new RedisStore({ client }));
  });
  afterAll(() => redis.stop());

  it('allows exactly the limit to 500 simultaneous requests from 5 app servers', async () => {
    const servers = Array.from(
      { length: 5 },
      () => new RateLimiterFactory(new RedisStore({ client: redis.client() })),
    );
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        servers[i % 5].countLimiter({ key: 'fw:exact', limit: 50, period: 60 }).tryAcquire(),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(50);
    // The 450 denials counted nothing.
    expect(await counterValue(client, 'countLimit:fw:exact')).toBe('50');
  });

  it('counts down remaining and opens a new window after the period', async () => {
    const limiter = factory.countLimiter({ key: 'fw:window', limit: 2, period: 0.3 });
    const first = await limiter.decide();
    expect(first).toMatchObject({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetMs: 300,
      retryAfterMs: 0,
    });
    expect((await limiter.decide()).remaining).toBe(0);
    const denied = await limiter.decide();
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(200);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect(await limiter.decide()).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('keeps counting a counter written before the window end was kept (a plain integer with a TTL)', async () => {
    await client.set('countLimit:fw:old', '7', 'PX', 30_000);
    const limiter = factory.countLimiter({ key: 'fw:old', limit: 10, period: 60 });
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await limiter.decide());
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, true, false, false]);
    expect(decisions.map((decision) => decision.remaining)).toEqual([2, 1, 0, 0, 0]);
    // The old key's window, not a new one: about 30 s left, not 60.
    for (const decision of decisions) {
      expect(decision.resetMs).toBeGreaterThan(25_000);
      expect(decision.resetMs).toBeLessThanOrEqual(30_000);
    }
    // The first write stored the end with the count; the TTL stayed the old key's.
    const [count, windowEndMicros] = (await counterValue(client, 'countLimit:fw:old'))!.split(' ');
    expect(count).toBe('10');
    const pttl = await client.pttl('countLimit:fw:old');
    expect(pttl).toBeGreaterThan(25_000);
    expect(pttl).toBeLessThanOrEqual(30_000);
    const [seconds, micros] = await client.time();
    const leftMs = (Number(windowEndMicros) - (Number(seconds) * 1e6 + Number(micros))) / 1000;
    expect(Math.abs(leftMs - pttl)).toBeLessThan(100);
  });

  it('opens a new window on a counter whose kept end has passed, even one without a TTL', async () => {
    const [seconds] = await client.time();
    const pastEndMicros = (Number(seconds) - 5) * 1_000_000;
    await client.set('countLimit:fw:ended', `9 ${pastEndMicros}`);
    const limiter = factory.countLimiter({ key: 'fw:ended', limit: 10, period: 10 });
    expect(await limiter.decide()).toMatchObject({ allowed: true, remaining: 9, resetMs: 10_000 });
    expect(await counterValue(client, 'countLimit:fw:ended')).toBe('1');
    const ttl = await client.pttl('countLimit:fw:ended');
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });

  it('heals a counter found without a TTL', async () => {
    await client.set('countLimit:fw:heal', '7');
    const decision = await factory.countLimiter({ key: 'fw:heal', limit: 5, period: 10 }).decide();
    expect(decision).toMatchObject({ allowed: false, resetMs: 10_000, retryAfterMs: 10_000 });
    const ttl = await client.pttl('countLimit:fw:heal');
    expect(ttl).toBeGreaterThan(9_000);
    expect(ttl).toBeLessThanOrEqual(10_000);
  });
});
