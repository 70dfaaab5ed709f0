import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { watchLateness } from '../helpers/lateness';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('rateLimit (a token bucket) on real Redis', () => {
  let redis: RedisServer;
  let client: Redis;
  let factory: RateLimiterFactory;
  let keySeq = 0;
  const key = () => `tb:${++keySeq}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
    factory = new RateLimiterFactory(new RedisStore({ client }));
  });
  afterAll(() => redis.stop());

  it('allows exactly the stored permits to 500 simultaneous requests from 5 app servers', async () => {
    const servers = Array.from(
      { length: 5 },
      () => new RateLimiterFactory(new RedisStore({ client: redis.client() })),
    );
    const name = key();
    // 50 permits, refilling one per 1000 s: negligible during the test.
    const results = await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        servers[i % 5].rateLimiter({ key: name, rate: 0.001, burst: 50_000 }).tryAcquire(),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(50);
  });

  it('gives concurrent waiters successive slots 100, 200 and 300 ms away', async () => {
    const limiter = factory.rateLimiter({ key: key(), rate: 10, burst: 0.1 });
    // Timed from before the first permit is taken: the slots count from that moment in Redis,
    // which may be well before its reply is read on a busy machine.
    const lateness = watchLateness();
    const started = Date.now();
    expect(await limiter.acquire()).toBe(0);
    const finished = await Promise.all(
      [0, 1, 2].map(async () => {
        const ok = await limiter.tryAcquire({ timeout: 1 });
        return { ok, after: Date.now() - started };
      }),
    );
    lateness.stop();
    expect(finished.map((f) => f.ok)).toEqual([true, true, true]);
    const afters = finished.map((f) => f.after).sort((a, b) => a - b);
    // A waiter's timer fires no earlier than its slot (less the clock's granularity), and no
    // later than its slot plus the round trips and however late the loop ran (its timer, and
    // the turn that read the first reply).
    [100, 200, 300].forEach((expected, i) => {
      expect(afters[i]).toBeGreaterThanOrEqual(expected - 15);
      expect(afters[i]).toBeLessThan(expected + 60 + 2 * lateness.maxMs());
    });
  });

  it('refuses at once, reserving nothing, a request whose wait exceeds its timeout', async () => {
    const limiter = factory.rateLimiter({ key: key(), rate: 10, burst: 0.1 });
    expect(await limiter.reserve()).toBe(0);
    const before = await limiter.decide(1, 0.05); // next permit is ~100 ms away
    expect(before).toMatchObject({ allowed: false, waitMs: 0 });
    expect(before.retryAfterMs).toBeGreaterThan(20);
    expect(before.retryAfterMs).toBeLessThanOrEqual(50);
    const lateness = watchLateness();
    const started = Date.now();
    expect(await limiter.tryAcquire({ timeout: 0.05 })).toBe(false);
    lateness.stop();
    // Refused at once: one round trip, never the 50 ms it could have waited.
    expect(Date.now() - started).toBeLessThan(30 + lateness.maxMs());
    // Nothing was reserved by the denials: the next reservation is still the first slot.
    const wait = await limiter.reserve();
    expect(wait).toBeGreaterThan(50);
    expect(wait).toBeLessThanOrEqual(100);
  });

  it('reserve() returns 0, ~100, ~200 ms in sequence', async () => {
    const limiter = factory.rateLimiter({ key: key(), rate: 10, burst: 0.1 });
    const reservations: { sentAt: number; at: number; wait: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const sentAt = Date.now();
      const wait = await limiter.reserve();
      reservations.push({ sentAt, at: Date.now(), wait });
    }
    const [first, ...later] = reservations;
    expect(first.wait).toBe(0);
    // The k-th slot is exactly k × 100 ms after the first decision; each wait is that, less the
    // time between the two decisions, which the test's clock brackets (Redis's TIME is the same
    // wall clock; 1 ms for Date.now's rounding).
    later.forEach(({ sentAt, at, wait }, i) => {
      const slotMs = 100 * (i + 1);
      expect(wait).toBeLessThanOrEqual(slotMs);
      expect(wait).toBeGreaterThanOrEqual(slotMs - (at - first.sentAt) - 1);
      expect(wait).toBeLessThanOrEqual(slotMs - (sentAt - first.at) + 1);
    });
  });

  it('never hands out permits early when expire is shorter than the refill', async () => {
    const name = key();
    const limiter = factory.rateLimiter({ key: name, rate: 0.5, burst: 2, expire: 1 });
    expect(await limiter.tryAcquire()).toBe(true);
    expect(await limiter.tryAcquire()).toBe(false); // emptied at t=0
    const ttlMs = await client.pttl(limiter.key);
    expect(ttlMs).toBeGreaterThan(1900); // time until full is 2 s, longer than expire
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const decision = await limiter.decide();
    expect(decision.allowed).toBe(false);
    expect(decision.retryAfterMs).toBeGreaterThan(700);
    expect(decision.retryAfterMs).toBeLessThanOrEqual(800);
  });

  it('reads Redis TIME: two servers whose clocks disagree by 10 s share one correct limit', async () => {
    const name = key();
    const spec = { key: name, rate: 1 / 60, burst: 60 }; // one a minute
    const a = new RateLimiterFactory(new RedisStore({ client: redis.client() }));
    const b = new RateLimiterFactory(new RedisStore({ client: redis.client() }));
    expect(await a.rateLimiter(spec).tryAcquire()).toBe(true);
    const realNow = Date.now;
    Date.now = () => realNow() + 10_000; // server b's clock runs 10 s ahead
    try {
      const denied = await b.rateLimiter(spec).decide();
      expect(denied.allowed).toBe(false);
      // Had b's clock been used, 10 s would have refilled 1/6 permit: retry 50 s, not 60 s.
      expect(denied.retryAfterMs).toBeGreaterThan(59_900);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(60_000);
    } finally {
      Date.now = realNow;
    }
  });

  it('one SMS a minute: allowed at 0, denied at 10 s with 50 s to wait, allowed at 60 s', async () => {
    let nowMs = 1_700_000_000_000;
    const timed = new RateLimiterFactory(new RedisStore({ client, now: () => nowMs }));
    const limiter = timed.rateLimiter({ key: key(), rate: 1 / 60, burst: 60 });
    expect((await limiter.decide()).allowed).toBe(true);
    nowMs += 10_000;
    expect(await limiter.decide()).toMatchObject({ allowed: false, retryAfterMs: 50_000 });
    nowMs += 50_000;
    expect(await limiter.decide()).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps deciding after SCRIPT FLUSH (EVALSHA falls back on NOSCRIPT)', async () => {
    const limiter = factory.rateLimiter({ key: key(), rate: 1, burst: 3 });
    expect(await limiter.tryAcquire()).toBe(true);
    await client.script('FLUSH');
    expect(await limiter.tryAcquire()).toBe(true);
    expect(await limiter.tryAcquire()).toBe(true);
    expect(await limiter.tryAcquire()).toBe(false);
  });

  it('keeps one key per limit', async () => {
    const name = key();
    await factory.rateLimiter({ key: name, rate: 5, burst: 2 }).tryAcquire();
    expect(await client.keys(`*${name}*`)).toEqual([`rateLimit:${name}`]);
    expect(await client.type(`rateLimit:${name}`)).toBe('string');
  });
});
