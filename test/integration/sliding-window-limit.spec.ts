import Redis from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { LimiterConfigError, MemoryStore, RateLimiterFactory, RedisStore } from '../../src';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('slidingWindowLimit (a sliding-window log) on real Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let nowMs = 1_700_000_000_000;
  /** Scripts take the injected time: decisions are exact to the microsecond. */
  let clocked: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
    clocked = new RateLimiterFactory(new RedisStore({ client, now: () => nowMs }));
  });
  afterAll(() => redis.stop());

  it('allows the limit, then denies until the oldest request leaves the window', async () => {
    const limiter = clocked.slidingWindowLimiter({ key: 'sw:basic', limit: 5, window: 1 });
    const start = nowMs;
    const trace: string[] = [];
    for (let i = 0; i < 6; i++) {
      nowMs = start + i * 100;
      const d = await limiter.decide();
      trace.push(
        `${i * 100}:${d.allowed ? 'A' : 'D'} rem${d.remaining} reset${d.resetMs} retry${d.retryAfterMs}`,
      );
    }
    expect(trace).toEqual([
      '0:A rem4 reset1000 retry0',
      '100:A rem3 reset1000 retry0',
      '200:A rem2 reset1000 retry0',
      '300:A rem1 reset1000 retry0',
      '400:A rem0 reset1000 retry0',
      // The request of t=0 leaves at t=1000; the window is empty when t=400's leaves, at 1400.
      '500:D rem0 reset900 retry500',
    ]);
    nowMs = start + 999;
    expect(await limiter.decide()).toMatchObject({ allowed: false, retryAfterMs: 1 });
    nowMs = start + 1000;
    expect(await limiter.decide()).toMatchObject({ allowed: true, remaining: 0 });
    // Denied requests are not logged: five members, each the request's uuid scored by its µs, TTL one window.
    const members = await client.zrange('slidingWindow:sw:basic', '0', '-1');
    expect(members).toHaveLength(5);
    expect(members[4]).toMatch(/^[0-9a-f-]{36}$/);
    expect(await client.zscore('slidingWindow:sw:basic', members[4])).toBe(
      String((start + 1000) * 1000),
    );
    expect(await client.pttl('slidingWindow:sw:basic')).toBeGreaterThan(900);
  });

  it('times the retry on Redis TIME within 20 ms', async () => {
    const limiter = new RateLimiterFactory(new RedisStore({ client })).slidingWindowLimiter({
      key: 'sw:real',
      limit: 5,
      window: 1,
    });
    const firstAt = Date.now();
    expect(await limiter.tryAcquire()).toBe(true);
    const firstDone = Date.now();
    for (let i = 1; i < 5; i++) expect(await limiter.tryAcquire()).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const deniedAt = Date.now();
    const denied = await limiter.decide();
    const deniedDone = Date.now();
    expect(denied.allowed).toBe(false);
    // Redis decided each call between its send and its reply: the retry is the first entry's
    // time plus the window, less the denial's time, within those brackets (and 20 ms of clock
    // skew between this process and Redis, which share a machine).
    expect(denied.retryAfterMs).toBeGreaterThanOrEqual(firstAt + 1000 - deniedDone - 20);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(firstDone + 1000 - deniedAt + 20);
    await new Promise((resolve) => setTimeout(resolve, denied.retryAfterMs + 5));
    expect(await limiter.tryAcquire()).toBe(true);
  });

  it('allows exactly the limit to 500 simultaneous requests from 3 app servers', async () => {
    const servers = [0, 1, 2].map(
      () => new RateLimiterFactory(new RedisStore({ client: redis.client() })),
    );
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        servers[i % 3]
          .slidingWindowLimiter({ key: 'sw:exact', limit: 50, window: 60 })
          .tryAcquire(),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(50);
    expect(await client.zcard('slidingWindow:sw:exact')).toBe(50);
  });

  it('keeps requests of the same microsecond from different servers apart', async () => {
    // Three app servers on one frozen clock: every member has the same score, and only the
    // request id generated in TypeScript keeps them apart.
    const servers = [0, 1, 2].map(
      () => new RateLimiterFactory(new RedisStore({ client: redis.client(), now: () => nowMs })),
    );
    const results = await Promise.all(
      Array.from({ length: 13 }, (_, i) =>
        servers[i % 3]
          .slidingWindowLimiter({ key: 'sw:same-us', limit: 12, window: 10 })
          .tryAcquire(),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(12);
    const scores = await client.zrange('slidingWindow:sw:same-us', '0', '-1', 'WITHSCORES');
    expect(new Set(scores.filter((_, i) => i % 2 === 1))).toEqual(new Set([String(nowMs * 1000)]));
    expect(await client.zcard('slidingWindow:sw:same-us')).toBe(12);
  });

  it('allows the limit across a fixed-window boundary where a fixed window allows 2x', async () => {
    // One request opens the fixed window at t=0 (it ends at t=1.0 s); then 4 requests at
    // t=0.9 s and 5 at t=1.1 s. The fixed window allows all 10: 9 of them within 0.2 s, and
    // 2x the limit within 1.1 s. The sliding log counts the last second wherever it ends.
    const schedule: [atMs: number, requests: number][] = [
      [0, 1],
      [900, 4],
      [1100, 5],
    ];
    const start = 1_800_000_000_000;
    const slidingStore = new RedisStore({ client, now: () => nowMs });
    const fixedStore = new MemoryStore({ now: () => nowMs });
    const sliding = slidingWindowLimitParams({ limit: 5, window: 1 });
    const fixed = countLimitParams({ limit: 5, period: 1 });
    const allowed = { sliding: [] as number[], fixed: [] as number[] };
    for (const [atMs, requests] of schedule) {
      nowMs = start + atMs;
      let s = 0;
      let f = 0;
      for (let i = 0; i < requests; i++) {
        const id = `${atMs}-${i}`;
        if (
          (
            await slidingStore.evaluate({
              algorithm: slidingWindowLimit,
              key: 'sw:boundary',
              params: sliding,
              request: { id },
            })
          ).allowed
        )
          s++;
        if (
          (
            await fixedStore.evaluate({
              algorithm: countLimit,
              key: 'fw:boundary',
              params: fixed,
              request: undefined,
            })
          ).allowed
        )
          f++;
      }
      allowed.sliding.push(s);
      allowed.fixed.push(f);
    }
    // Fixed window: 10 allowed within 1.1 s, twice the limit.
    expect(allowed.fixed).toEqual([1, 4, 5]);
    // At t=1.1 s only the request of t=0 has left the window: one more fits, 5 in [0.9, 1.1].
    expect(allowed.sliding).toEqual([1, 4, 1]);
  });

  it('rejects invalid options with the option named', () => {
    expect(() => clocked.slidingWindowLimiter({ key: 'k', limit: 0, window: 1 })).toThrow(
      new LimiterConfigError("slidingWindowLimiter: option 'limit' must be an integer >= 1, got 0"),
    );
    expect(() => clocked.slidingWindowLimiter({ key: 'k', limit: 1, window: Infinity })).toThrow(
      "slidingWindowLimiter: option 'window' must be a finite number > 0, got Infinity",
    );
  });
});
