import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('countLimit (a fixed-window counter) on real Redis', () => {
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
    expect(await client.get('countLimit:fw:exact')).toBe('50');
  });

  it('counts down remaining and opens a new window after the period', async () => {
    // A window long enough that a busy machine cannot let it pass between the three calls.
    const limiter = factory.countLimiter({ key: 'fw:window', limit: 2, period: 1 });
    const firstAt = Date.now();
    const first = await limiter.decide();
    const firstDone = Date.now();
    expect(first).toMatchObject({
      allowed: true,
      limit: 2,
      remaining: 1,
      resetMs: 1000,
      retryAfterMs: 0,
    });
    expect((await limiter.decide()).remaining).toBe(0);
    const deniedAt = Date.now();
    const denied = await limiter.decide();
    const deniedDone = Date.now();
    expect(denied.allowed).toBe(false);
    // The window ends one period after the first request, which Redis decided between its
    // send and its reply (PTTL is in whole ms: 1 ms of rounding).
    expect(denied.retryAfterMs).toBeGreaterThanOrEqual(firstAt + 1000 - deniedDone - 1);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(firstDone + 1000 - deniedAt);
    await new Promise((resolve) => setTimeout(resolve, denied.retryAfterMs + 20));
    expect(await limiter.decide()).toMatchObject({ allowed: true, remaining: 1 });
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
