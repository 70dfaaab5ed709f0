import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * The counter decides in INCRBY then PTTL (count-limit.incr.lua): keys written before, by the
 * read-then-write decision, read as they did, and a denial keeps nothing.
 */
describe('the counter in two commands, on keys written before', () => {
  let redis: RedisServer;
  let admin: Redis;
  let factory: RateLimiterFactory;
  const counter = (key: string) => factory.countLimiter({ key, prefix: '', limit: 5, period: 60 });

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    factory = new RateLimiterFactory(
      new RedisStore({ client: redis.client(), cacheDenials: false }),
    );
  });
  afterAll(() => redis.stop());

  it('counts on in a window a key already holds, its TTL kept', async () => {
    await admin.set('held', '3', 'PX', 30_000);
    expect(await counter('held').decide()).toMatchObject({ allowed: true, remaining: 1 });
    expect(await admin.get('held')).toBe('4');
    const ttl = await admin.pttl('held');
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });

  it('denies at the limit keeping the count and the TTL as they were', async () => {
    await admin.set('full', '5', 'PX', 30_000);
    const decision = await counter('full').decide();
    expect(decision).toMatchObject({ allowed: false, remaining: 0 });
    expect(decision.retryAfterMs).toBeGreaterThan(29_000);
    expect(await admin.get('full')).toBe('5');
    expect(await admin.pttl('full')).toBeGreaterThan(29_000);
  });

  it('starts a window on the first request, its TTL one period', async () => {
    expect(await counter('fresh').decide()).toMatchObject({ allowed: true, remaining: 4 });
    expect(await admin.get('fresh')).toBe('1');
    expect(await admin.pttl('fresh')).toBeGreaterThan(59_000);
  });

  it('gives a counter without a TTL one period (self-healing)', async () => {
    await admin.set('forever', '2');
    expect(await counter('forever').decide()).toMatchObject({ allowed: true, remaining: 2 });
    expect(await admin.pttl('forever')).toBeGreaterThan(59_000);
  });

  it('reads a key that holds a block as before: denied until the block ends', async () => {
    await counter('blocked').decide();
    await counter('blocked').block(30);
    // The count, the block's end, level 0 (set by hand: no block option cuts it), its expiry.
    expect(await admin.get('blocked')).toMatch(/^1!\d+!0!\d+$/);
    const decision = await counter('blocked').decide();
    expect(decision).toMatchObject({ allowed: false, remaining: 0 });
    expect(decision.retryAfterMs).toBeGreaterThan(29_000);
    expect(await admin.get('blocked')).toMatch(/^1!\d+!0!\d+$/);
  });
});
