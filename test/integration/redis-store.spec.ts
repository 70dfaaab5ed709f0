import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { RateLimiterFactory, RedisStore, StoreUnavailableError } from '../../src';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('RedisStore', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('runs different scripts in one tick on an auto-pipelining client that is still connecting', async () => {
    await redis.client().script('FLUSH');
    const store = new RedisStore({ client: redis.client({ enableAutoPipelining: true }) });
    const bucket = rateLimitParams({ rate: 1, burst: 2 });
    const [counted, taken] = await Promise.all([
      store.evaluate({
        algorithm: countLimit,
        key: 'ap:count',
        params: countLimitParams({ limit: 5, period: 60 }),
        request: undefined,
      }),
      store.evaluate({
        algorithm: rateLimit,
        key: 'ap:bucket',
        params: bucket,
        request: { permits: 1, timeoutMicros: 0 },
      }),
    ]);
    expect([counted.allowed, counted.remaining, taken.allowed, taken.remaining]).toEqual([
      true,
      4,
      true,
      1,
    ]);
  });

  it('reports a failed evaluation as StoreUnavailableError, never as a denial', async () => {
    const client = redis.client();
    await client.set('wrongtype', 'x');
    await client.lpush('wrong:list', 'x');
    const store = new RedisStore({ client });
    const evaluation = store.evaluate({
      algorithm: countLimit,
      key: 'wrong:list',
      params: countLimitParams({}),
      request: undefined,
    });
    await expect(evaluation).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(evaluation).rejects.toThrow(
      /Redis failed to evaluate limiterCountLimit: .*WRONGTYPE/,
    );
  });

  describe('local denial cache', () => {
    const evalCalls = async () => {
      const stats = await redis.client().info('commandstats');
      return [...stats.matchAll(/cmdstat_(evalsha|eval|fcall):calls=(\d+)/g)].reduce(
        (sum, m) => sum + Number(m[2]),
        0,
      );
    };

    it('answers a repeated denial locally until its retry time, with the retry counting down', async () => {
      let nowMs = 1_000_000;
      const store = new RedisStore({ client: redis.client(), now: () => nowMs });
      // Started as the module starts it: a store remembers no denial until Redis has
      // confirmed its subscription to other servers' resets (a race without this).
      await store.check();
      const factory = new RateLimiterFactory(store);
      const limiter = factory.rateLimiter({ key: 'cache:tb', rate: 1, burst: 2 });
      expect([
        await limiter.tryAcquire(),
        await limiter.tryAcquire(),
        await limiter.tryAcquire(),
      ]).toEqual([true, true, false]);
      const before = await evalCalls();
      nowMs += 400;
      expect(await limiter.decide()).toMatchObject({ allowed: false, retryAfterMs: 600 });
      expect(await evalCalls()).toBe(before);
      // A different request shape is not answered by the cache.
      expect((await limiter.decide(1, 1)).allowed).toBe(true);
      expect(await evalCalls()).toBe(before + 1);
      nowMs += 2_000;
      expect((await limiter.decide()).allowed).toBe(true);
      expect(await evalCalls()).toBe(before + 2);
    });

    it('never caches a concurrency denial, which another request may end at any time', async () => {
      const factory = new RateLimiterFactory(new RedisStore({ client: redis.client() }));
      const limiter = factory.concurrencyLimiter({ key: 'cache:slots', max: 1 });
      const slot = await limiter.tryAcquire();
      expect(slot).not.toBeNull();
      expect(await limiter.tryAcquire()).toBeNull();
      await slot!.release();
      expect(await limiter.tryAcquire()).not.toBeNull();
    });
  });
});
