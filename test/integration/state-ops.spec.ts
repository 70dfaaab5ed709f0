import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { eventually } from '../helpers/eventually';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

/** peek, reset, refund and block on factory limiters, on a real redis-server. */
describe('state you can act on, on real Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let serverA: RateLimiterFactory;
  let serverB: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
    serverA = new RateLimiterFactory(new RedisStore({ client }));
    serverB = new RateLimiterFactory(new RedisStore({ client: redis.client() }));
  });
  afterAll(() => redis.stop());

  // The absolute expiry: PTTL itself shrinks while the test runs.
  const snapshot = async (key: string) => ({
    dump: await client.dumpBuffer(key),
    expiresAt: await client.call('PEXPIRETIME', key),
  });

  it('peek leaves DUMP and PTTL of every kind of key unchanged, and reports what is left', async () => {
    const limiters = [
      serverA.rateLimiter({ key: 'peek:tb', rate: 1, burst: 5 }),
      serverA.countLimiter({ key: 'peek:fw', limit: 5, period: 60 }),
      serverA.slidingWindowLimiter({ key: 'peek:sw', limit: 5, window: 60 }),
      serverA.leakyBucketLimiter({ key: 'peek:lb', capacity: 5, rate: 1 }),
      serverA.slidingWindowLimiter({ key: 'peek:asw', limit: 5, window: 60, approximate: true }),
    ];
    for (const limiter of limiters) {
      expect(await limiter.tryAcquire()).toBe(true);
      expect(await limiter.tryAcquire()).toBe(true);
      const before = await snapshot(limiter.key);
      expect(before.dump).not.toBeNull();
      const startedAt = performance.now();
      const pttl = await client.pttl(limiter.key);
      const state = await limiter.peek();
      const pttlAfter = await client.pttl(limiter.key);
      // PTTL moved by the time that passed, no more and no less: the TTL was not rewritten.
      expect(pttl - pttlAfter).toBeGreaterThanOrEqual(0);
      expect(pttl - pttlAfter).toBeLessThanOrEqual(Math.ceil(performance.now() - startedAt) + 1);
      expect(await snapshot(limiter.key)).toEqual(before);
      expect(state).toMatchObject({ limit: 5, remaining: 3, blockedMs: 0 });
    }
  });

  it('concurrency: peek leaves the in-flight slots as they were; reset frees them all', async () => {
    const limiter = serverA.concurrencyLimiter({ key: 'peek:cc', max: 3, lease: 60 });
    expect(await limiter.tryAcquire()).not.toBeNull();
    expect(await limiter.tryAcquire()).not.toBeNull();
    const before = await snapshot(limiter.key);
    expect(await limiter.peek()).toMatchObject({ limit: 3, remaining: 1, blockedMs: 0 });
    expect(await snapshot(limiter.key)).toEqual(before);
    await limiter.reset();
    expect(await limiter.peek()).toMatchObject({ remaining: 3 });
  });

  it('peek on a missing key creates nothing', async () => {
    const limiter = serverA.rateLimiter({ key: 'peek:none', rate: 1, burst: 3 });
    expect(await limiter.peek()).toMatchObject({ limit: 3, remaining: 3, blockedMs: 0 });
    expect(await client.exists(limiter.key)).toBe(0);
  });

  it('reset on one server frees the key for another', async () => {
    const onA = serverA.countLimiter({ key: 'reset:alice', limit: 2, period: 60 });
    const onB = serverB.countLimiter({ key: 'reset:alice', limit: 2, period: 60 });
    expect(await onB.tryAcquire()).toBe(true);
    expect(await onB.tryAcquire()).toBe(true);
    expect(await onB.tryAcquire()).toBe(false);
    // B listens for changes made elsewhere (what it remembered before that is forgotten
    // once it listens): from now on it answers this key's denials locally.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await onB.tryAcquire()).toBe(false);
    const counted = await client.get(onB.key);
    expect(await onB.tryAcquire()).toBe(false);
    expect(await client.get(onB.key)).toBe(counted);
    await onA.reset();
    expect(await client.exists(onA.key)).toBe(0);
    // Pub/sub tells B within moments: a denial it remembered must not outlive the reset.
    expect(await eventually(() => onB.tryAcquire(), true, 1000)).toBe(true);
    expect(await client.get(onB.key)).toBe('1');
  });

  it('refund gives permits back, never above the maximum', async () => {
    const bucket = serverA.rateLimiter({ key: 'refund:tb', rate: 1 / 60, burst: 180 });
    expect(await bucket.tryAcquire(3)).toBe(true);
    expect(await bucket.tryAcquire()).toBe(false);
    await bucket.refund(1);
    expect((await bucket.peek()).remaining).toBe(1);
    await bucket.refund(5);
    // Back to full: the key decides as no key does, so it is gone.
    expect(await client.exists(bucket.key)).toBe(0);
    expect((await bucket.peek()).remaining).toBe(3);

    const counter = serverA.countLimiter({ key: 'refund:fw', limit: 2, period: 60 });
    await counter.tryAcquire();
    await counter.tryAcquire();
    await counter.refund();
    expect(await client.get(counter.key)).toBe('1');
    await counter.refund(4);
    expect(await client.exists(counter.key)).toBe(0);

    const log = serverA.slidingWindowLimiter({ key: 'refund:sw', limit: 2, window: 60 });
    await log.tryAcquire();
    await log.tryAcquire();
    expect(await log.tryAcquire()).toBe(false);
    await log.refund();
    expect(await client.zcard(log.key)).toBe(1);
    expect(await log.tryAcquire()).toBe(true);

    const leaky = serverA.leakyBucketLimiter({ key: 'refund:lb', capacity: 2, rate: 1 / 60 });
    await leaky.tryAcquire();
    await leaky.tryAcquire();
    expect(await leaky.tryAcquire()).toBe(false);
    await leaky.refund();
    expect(await leaky.tryAcquire()).toBe(true);
    await leaky.refund(10);
    expect(await client.exists(leaky.key)).toBe(0);

    const approx = serverA.slidingWindowLimiter({
      key: 'refund:asw',
      limit: 2,
      window: 600,
      approximate: true,
    });
    await approx.tryAcquire();
    await approx.tryAcquire();
    expect(await approx.tryAcquire()).toBe(false);
    await approx.refund();
    expect(await approx.tryAcquire()).toBe(true);
  });

  it('block denies the key on every server with the time left, and reset lifts it', async () => {
    const onA = serverA.countLimiter({ key: 'block:bob', limit: 100, period: 1 });
    const onB = serverB.countLimiter({ key: 'block:bob', limit: 100, period: 1 });
    expect(await onB.tryAcquire()).toBe(true);
    await onA.block(30);
    const denied = await onB.decide();
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(29_000);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(30_000);
    expect(await client.pttl(onA.key)).toBeGreaterThan(29_000);
    // The block outlasts the 1 s window.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await onB.tryAcquire()).toBe(false);
    expect((await onA.peek()).blockedMs).toBeGreaterThan(27_000);
    await onA.reset();
    expect(await eventually(() => onB.tryAcquire(), true, 1000)).toBe(true);
  });

  it('keeps blocks of the sliding log in a reserved member, not counted as a request', async () => {
    const log = serverA.slidingWindowLimiter({ key: 'block:sw', limit: 2, window: 60 });
    await log.tryAcquire();
    await log.block(0.2);
    expect(await log.tryAcquire()).toBe(false);
    expect(await client.zscore(log.key, '#block')).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await log.tryAcquire()).toBe(true);
    expect(await client.zrange(log.key, '0', '-1')).toHaveLength(2);
    expect(await client.zscore(log.key, '#block')).toBeNull();
  });
});
