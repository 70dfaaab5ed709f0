import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { allowedOf } from '../helpers/in-flight';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** What another server sees of the key: Redis's count, every lease counted as taken. */
async function remainingSeenBy(client: Redis, key: string, limit: number): Promise<number> {
  return limit - Number((await client.get(`countLimit:${key}`)) ?? 0);
}

/** `lease: n`: a server takes up to n permits at once and hands them out itself. */
describe('leases of a hot key', () => {
  let redis: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  async function server() {
    const store = new RedisStore({ client: redis.client(), ownsClient: true });
    await store.check();
    return { store, factory: new RateLimiterFactory(store) };
  }

  it('a server that uses 10 of a 100-permit lease and closes leaves the key at 990 remaining', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'close', limit: 1000, period: 600, lease: 100 });
    for (let i = 0; i < 9; i++) expect(await limiter.tryAcquire()).toBe(true);
    // The lease counts as taken in Redis: the other servers see 900 left, and so do headers.
    const tenth = await limiter.decide();
    expect([tenth.allowed, tenth.remaining]).toEqual([true, 900]);
    expect(await remainingSeenBy(admin, 'close', 1000)).toBe(900);
    await store.close();
    expect(await remainingSeenBy(admin, 'close', 1000)).toBe(990);
  });

  it('peek tells what this server holds on lease, counted as taken in remaining', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'peek', limit: 1000, period: 600, lease: 100 });
    expect(await limiter.peek()).toEqual(
      expect.not.objectContaining({ leased: expect.anything() }),
    );
    for (let i = 0; i < 10; i++) expect(await limiter.tryAcquire()).toBe(true);
    expect(await limiter.peek()).toMatchObject({ limit: 1000, remaining: 900, leased: 90 });
    await store.close();
  });

  it('gives back what it did not use when the lease ends, within a second', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'ends', limit: 1000, period: 600, lease: 100 });
    for (let i = 0; i < 10; i++) expect(await limiter.tryAcquire()).toBe(true);
    expect(await remainingSeenBy(admin, 'ends', 1000)).toBe(900);
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await remainingSeenBy(admin, 'ends', 1000)).toBe(990);
    await store.close();
  });

  it('one server admits exactly the limit: leases shrink near it', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'exact', limit: 250, period: 600, lease: 100 });
    expect(await allowedOf(() => limiter.tryAcquire(), 400)).toBe(250);
    await store.close();
    expect(await remainingSeenBy(admin, 'exact', 250)).toBe(0);
  });

  it.each([
    [
      'a token bucket',
      (f: RateLimiterFactory) =>
        f.rateLimiter({ key: 'tb', rate: 0.001, burst: 250_000, lease: 100 }),
    ],
    [
      'a leaky bucket',
      (f: RateLimiterFactory) =>
        f.leakyBucketLimiter({ key: 'lb', capacity: 250, rate: 0.001, lease: 100 }),
    ],
  ])('%s: one server admits exactly its capacity', async (_name, make) => {
    const { store, factory } = await server();
    const limiter = make(factory);
    expect(await allowedOf(() => limiter.tryAcquire(), 400)).toBe(250);
    await store.close();
  });

  it('a reset forgets the permits this server leased: the key starts again from the limit', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'reset', limit: 1000, period: 600, lease: 100 });
    for (let i = 0; i < 10; i++) expect(await limiter.tryAcquire()).toBe(true);
    await limiter.reset();
    expect(await remainingSeenBy(admin, 'reset', 1000)).toBe(1000);
    expect(await limiter.tryAcquire()).toBe(true);
    expect(await remainingSeenBy(admin, 'reset', 1000)).toBe(900);
    await store.close();
    expect(await remainingSeenBy(admin, 'reset', 1000)).toBe(999);
  });
});
