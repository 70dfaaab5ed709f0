import Redis from 'ioredis';
import { LimiterConfigError, RateLimiterFactory, RedisStore } from '../../src';
import { ConcurrencySlot } from '../../src/algorithms/concurrency-limit/concurrency-limit.model';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('concurrencyLimit on real Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let nowMs = 1_700_000_000_000;
  let factory: RateLimiterFactory;
  /** Scripts take the injected time: leases end exactly when the test says. */
  let clocked: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
    factory = new RateLimiterFactory(new RedisStore({ client }));
    clocked = new RateLimiterFactory(new RedisStore({ client, now: () => nowMs }));
  });
  afterAll(() => redis.stop());

  it('gives 2 of 3 simultaneous acquires a slot, and a released slot to the next', async () => {
    const limiter = factory.concurrencyLimiter({ key: 'cc:basic', max: 2 });
    const slots = await Promise.all([0, 1, 2].map(() => limiter.tryAcquire()));
    const held = slots.filter((slot): slot is ConcurrencySlot => slot !== null);
    expect(held).toHaveLength(2);
    expect(held.map((slot) => slot.decision.remaining).sort()).toEqual([0, 1]);
    expect(await limiter.tryAcquire()).toBeNull();

    await held[0].release();
    expect(await client.zrange('concurrency:cc:basic', '0', '-1')).toEqual([held[1].id]);
    const next = await limiter.tryAcquire();
    expect(next).not.toBeNull();
    expect(await client.zcard('concurrency:cc:basic')).toBe(2);
    const ttl = await client.pttl('concurrency:cc:basic');
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('releases a slot once however often release is called', async () => {
    const limiter = factory.concurrencyLimiter({ key: 'cc:idempotent', max: 1 });
    const slot = (await limiter.tryAcquire())!;
    const other = (await limiter.decide('other-holder')).allowed;
    expect(other).toBe(false);
    const release = jest.spyOn(limiter, 'release');
    await Promise.all([slot.release(), slot.release()]);
    await slot.release();
    expect(release).toHaveBeenCalledTimes(1);
    release.mockRestore();
    // A release that empties the set leaves no key behind.
    expect(await client.exists('concurrency:cc:idempotent')).toBe(0);
    // A stale release (the id is no longer in flight) cannot free someone else's slot.
    const second = (await limiter.tryAcquire())!;
    expect(await limiter.release(slot.id)).toMatchObject({ allowed: true, remaining: 0 });
    expect(await limiter.tryAcquire()).toBeNull();
    await second.release();
  });

  it('renews the lease of an id already in flight without taking a second slot', async () => {
    const limiter = clocked.concurrencyLimiter({ key: 'cc:renew', max: 2, lease: 10 });
    expect(await limiter.decide('a')).toMatchObject({
      allowed: true,
      remaining: 1,
      resetMs: 10_000,
    });
    nowMs += 4_000;
    expect(await limiter.decide('a')).toMatchObject({
      allowed: true,
      remaining: 1,
      resetMs: 10_000,
    });
    expect(await client.zscore('concurrency:cc:renew', 'a')).toBe(String((nowMs + 10_000) * 1000));
  });

  it('frees the slot of a holder that never releases (a crashed server) when its lease ends', async () => {
    const limiter = clocked.concurrencyLimiter({ key: 'cc:crash', max: 2, lease: 60 });
    const start = nowMs;
    expect((await limiter.tryAcquire())?.decision).toMatchObject({ remaining: 1, resetMs: 60_000 });
    nowMs = start + 10_000;
    expect(await limiter.tryAcquire()).not.toBeNull();
    nowMs = start + 25_000;
    // Neither holder releases. The earliest lease ends at 60 s: an upper bound on the wait.
    expect(await limiter.decide('c')).toEqual({
      allowed: false,
      limit: 2,
      remaining: 0,
      resetMs: 45_000,
      retryAfterMs: 35_000,
      waitMs: 0,
    });
    nowMs = start + 59_999;
    expect((await limiter.decide('c')).allowed).toBe(false);
    nowMs = start + 60_000;
    expect(await limiter.decide('c')).toMatchObject({ allowed: true, remaining: 0 });
    expect(await client.zcard('concurrency:cc:crash')).toBe(2);
  });

  it('frees a never-released slot after a short lease on Redis TIME', async () => {
    const limiter = factory.concurrencyLimiter({ key: 'cc:lease', max: 1, lease: 0.3 });
    expect(await limiter.tryAcquire()).not.toBeNull();
    const denied = await limiter.decide('waiting');
    expect(denied.allowed).toBe(false);
    expect(denied.retryAfterMs).toBeGreaterThan(250);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(300);
    await new Promise((resolve) => setTimeout(resolve, 320));
    expect(await limiter.tryAcquire()).not.toBeNull();
  });

  it('gives exactly 10 of 200 simultaneous acquires from 3 app servers a slot', async () => {
    const servers = [0, 1, 2].map(
      () => new RateLimiterFactory(new RedisStore({ client: redis.client() })),
    );
    const limiterOf = (i: number) =>
      servers[i % 3].concurrencyLimiter({ key: 'cc:exact', max: 10 });
    const slots = await Promise.all(
      Array.from({ length: 200 }, (_, i) => limiterOf(i).tryAcquire()),
    );
    const held = slots.filter((slot): slot is ConcurrencySlot => slot !== null);
    expect(held).toHaveLength(10);
    expect(await client.zcard('concurrency:cc:exact')).toBe(10);
    await Promise.all(held.map((slot) => slot.release()));
    expect(await client.zcard('concurrency:cc:exact')).toBe(0);
    expect(await client.exists('concurrency:cc:exact')).toBe(0);
  });

  it('rejects invalid options with the option named', async () => {
    expect(() => factory.concurrencyLimiter({ key: 'k', max: 1.5 })).toThrow(
      new LimiterConfigError("concurrencyLimiter: option 'max' must be an integer >= 1, got 1.5"),
    );
    expect(() => factory.concurrencyLimiter({ key: 'k', max: 1, lease: 0 })).toThrow(
      "concurrencyLimiter: option 'lease' must be a finite number > 0, got 0",
    );
    await expect(factory.concurrencyLimiter({ key: 'k', max: 1 }).decide('')).rejects.toThrow(
      "concurrencyLimiter: option 'id' must be a non-empty string without NUL, got ''",
    );
    await expect(
      factory.concurrencyLimiter({ key: 'k', max: 1 }).decide('a\u00002'),
    ).rejects.toThrow(
      "concurrencyLimiter: option 'id' must be a non-empty string without NUL, got 'a\u00002'",
    );
  });
});
