import Redis from 'ioredis';
import { LimiterConfigError, RateLimiterFactory, RedisStore } from '../../src';
import {
  leakyBucketFingerprint,
  leakyBucketLimitParams,
} from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('leakyBucketLimit (GCRA) on real Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let nowMs = 1_700_000_000_000;
  let factory: RateLimiterFactory;
  /** Scripts take the injected time: every reply is exact to the microsecond. */
  let clocked: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
    factory = new RateLimiterFactory(new RedisStore({ client }));
    clocked = new RateLimiterFactory(new RedisStore({ client, now: () => nowMs }));
  });
  afterAll(() => redis.stop());

  it('lets capacity 3 burst, then one a second (Redis TIME)', async () => {
    const limiter = factory.leakyBucketLimiter({ key: 'lb:real', capacity: 3, rate: 1 });
    const started = Date.now();
    for (let i = 0; i < 3; i++) expect(await limiter.tryAcquire()).toBe(true);
    const denied = await limiter.decide();
    // Redis's clock runs on between the first request and the denial (a loaded machine can
    // take tens of milliseconds): the wait is one interval less that time.
    const elapsedMs = Date.now() - started;
    expect(denied).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
    expect(denied.retryAfterMs).toBeGreaterThanOrEqual(1000 - elapsedMs - 1);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(1000);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await limiter.tryAcquire()).toBe(true);
    expect(await limiter.tryAcquire()).toBe(false);
  });

  it('reports remaining, reset-after and retry-after as CL.THROTTLE defines them', async () => {
    // capacity 3 (max_burst 2), rate 1/s: T = 1 s, tolerance 3 s.
    const limiter = clocked.leakyBucketLimiter({ key: 'lb:script', capacity: 3, rate: 1 });
    const start = nowMs;
    const at = async (ms: number) => {
      nowMs = start + ms;
      const d = await limiter.decide();
      return `${ms}:${d.allowed ? 'A' : 'D'} rem${d.remaining} reset${d.resetMs} retry${d.retryAfterMs}`;
    };
    const trace: string[] = [];
    for (const ms of [0, 0, 0, 0, 1000, 1000, 3500, 3500, 3500, 10_000]) trace.push(await at(ms));
    expect(trace).toEqual([
      '0:A rem2 reset1000 retry0', // tat 0 -> 1 s
      '0:A rem1 reset2000 retry0', // tat 1 -> 2 s
      '0:A rem0 reset3000 retry0', // tat 2 -> 3 s: the burst is spent
      '0:D rem0 reset3000 retry1000', // would make tat 4 s: allowed from 4 - 3 = 1 s
      '1000:A rem0 reset3000 retry0', // one leaked: tat 3 -> 4 s
      '1000:D rem0 reset3000 retry1000',
      '3500:A rem1 reset1500 retry0', // tat 4 -> 5 s
      '3500:A rem0 reset2500 retry0', // tat 5 -> 6 s
      '3500:D rem0 reset2500 retry500', // allowed from 7 - 3 = 4 s
      '10000:A rem2 reset1000 retry0', // drained long ago: like a new bucket
    ]);
    // One number in one key: the theoretical arrival time in µs, kept until it is reached.
    // The tat, and the fingerprint of the options it was written under.
    const written = leakyBucketFingerprint(leakyBucketLimitParams({ capacity: 3, rate: 1 }));
    expect(await client.get('leakyBucket:lb:script')).toBe(`${(start + 11_000) * 1000}~${written}`);
    const ttl = await client.pttl('leakyBucket:lb:script');
    expect(ttl).toBeGreaterThan(900);
    expect(ttl).toBeLessThanOrEqual(1000);
  });

  it('allows exactly capacity 50 of 500 simultaneous requests from 3 app servers', async () => {
    const servers = [0, 1, 2].map(
      () => new RateLimiterFactory(new RedisStore({ client: redis.client() })),
    );
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        servers[i % 3]
          .leakyBucketLimiter({ key: 'lb:exact', capacity: 50, rate: 0.001 })
          .tryAcquire(),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(50);
    // 50 emissions of 1000 s each are queued: the key lives until they have leaked.
    expect(await client.pttl('leakyBucket:lb:exact')).toBeGreaterThan(49_990_000);
  });

  it('rejects invalid options with the option named', () => {
    expect(() => factory.leakyBucketLimiter({ key: 'k', capacity: 0, rate: 1 })).toThrow(
      new LimiterConfigError(
        "leakyBucketLimiter: option 'capacity' must be an integer >= 1, got 0",
      ),
    );
    expect(() => factory.leakyBucketLimiter({ key: 'k', capacity: 1, rate: NaN })).toThrow(
      "leakyBucketLimiter: option 'rate' must be a finite number > 0, got NaN",
    );
  });
});
