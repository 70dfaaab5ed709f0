import fc from 'fast-check';
import Redis, { Cluster } from 'ioredis';
import { approximateSlidingWindowLimit } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { Decision, MemoryStore, RateLimiterFactory, RedisStore } from '../../src';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const SECOND_MS = 1000;
/** A multiple of every window used here, so the tests start on a window boundary. */
const START_MS = 1_700_000_000_000;
const ONE = { permits: 1 };

describe('approximateSlidingWindowLimit on a real Redis', () => {
  let server: RedisServer;
  let client: Redis;
  let nowMs = START_MS;
  let timed: RedisStore;
  let run = 0;

  beforeAll(async () => {
    server = await startRedisServer();
    client = server.client();
    timed = new RedisStore({ client, now: () => nowMs, cacheDenials: false });
  });
  afterAll(() => server.stop());

  const decide = (store: RedisStore | MemoryStore, key: string, limit: number, window: number) =>
    store.evaluate({
      algorithm: approximateSlidingWindowLimit,
      key,
      params: slidingWindowLimitParams({ limit, window }),
      request: ONE,
    });

  async function statuses(key: string, count: number): Promise<string> {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const d = await decide(timed, key, 10, 10);
      out.push(d.allowed ? `A${d.remaining}` : `D${d.retryAfterMs}`);
    }
    return out.join(' ');
  }

  it("follows the design's example step by step on an injected clock", async () => {
    const key = `approx:example:${++run}`;
    nowMs = START_MS;
    expect(await statuses(key, 11)).toBe('A9 A8 A7 A6 A5 A4 A3 A2 A1 A0 D11000');
    nowMs = START_MS + 10 * SECOND_MS;
    expect(await statuses(key, 1)).toBe('D1000');
    nowMs = START_MS + 15 * SECOND_MS;
    expect(await statuses(key, 6)).toBe('A4 A3 A2 A1 A0 D1000');
    expect(await client.get(key)).toBe('170000001 5 10');
    // Kept to the end of the next window: t = 30 s, 15 s from t = 15 s.
    expect(await client.pttl(key)).toBeGreaterThan(14_000);
    expect(await client.pttl(key)).toBeLessThanOrEqual(15_000);
    nowMs = START_MS + 20 * SECOND_MS;
    expect(await statuses(key, 6)).toBe('A4 A3 A2 A1 A0 D2000');
  });

  it('denies on a window of 2^53 µs or more at once, and Redis keeps answering', async () => {
    // The engine call alone, below the options' checks: no window may make the retry loop.
    const params = { limit: 1, windowMicros: 31_536_000_000 * 1_000_000 };
    const key = `approx:huge-window:${++run}`;
    nowMs = START_MS;
    const memory = new MemoryStore({ now: () => nowMs });
    const decisions: Decision[] = [];
    for (let i = 0; i < 2; i++) {
      const fromRedis = await timed.evaluate({
        algorithm: approximateSlidingWindowLimit,
        key,
        params,
        request: ONE,
      });
      expect(
        await memory.evaluate({
          algorithm: approximateSlidingWindowLimit,
          key,
          params,
          request: ONE,
        }),
      ).toEqual(fromRedis);
      decisions.push(fromRedis);
    }
    expect(decisions.map((d) => d.allowed)).toEqual([true, false]);
    expect(decisions[1].retryAfterMs).toBeGreaterThan(0);
    expect(await client.ping()).toBe('PONG');
  }, 15_000);

  it('allows exactly 50 of 500 simultaneous requests on limit 50 (Redis TIME)', async () => {
    const store = new RedisStore({ client });
    const key = `approx:burst:${++run}`;
    // A day's window: crossing a boundary during the test is all but impossible.
    const decisions = await Promise.all(
      Array.from({ length: 500 }, () => decide(store, key, 50, 86_400)),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(50);
    expect((await client.get(key))?.split(' ')[1]).toBe('50');
  });

  it('keeps one key of at most 200 bytes after 1,000 requests on limit 1,000', async () => {
    const key = `approx:memory:${++run}`;
    const store = new RedisStore({ client });
    await Promise.all(Array.from({ length: 1_000 }, () => decide(store, key, 1_000, 3_600)));
    const bytes = Number(await client.call('MEMORY', 'USAGE', key));
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(200);
    expect(await client.keys('approx:memory:*')).toEqual([key]);
  });

  it('a request at now + retryAfter is allowed and one 10 ms earlier is not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(1, 2.5, 10),
        fc.array(fc.integer({ min: 0, max: 4_000 }), { minLength: 1, maxLength: 25 }),
        async (limit, window, advances) => {
          const key = `approx:retry:${++run}`;
          nowMs = START_MS;
          let denial: Decision | undefined;
          for (const advance of advances) {
            nowMs += advance;
            const decision = await decide(timed, key, limit, window);
            if (!decision.allowed) denial = decision;
            if (denial) break;
          }
          if (!denial) return;
          const deniedAt = nowMs;
          if (denial.retryAfterMs > 10) {
            nowMs = deniedAt + denial.retryAfterMs - 10;
            expect((await decide(timed, key, limit, window)).allowed).toBe(false);
          }
          nowMs = deniedAt + denial.retryAfterMs;
          expect((await decide(timed, key, limit, window)).allowed).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('the Lua and the memory twin agree step by step', async () => {
    const advanceMs = fc.oneof(
      { arbitrary: fc.constant(0), weight: 2 },
      { arbitrary: fc.constantFrom(250, 500, 1_000, 2_500), weight: 4 },
      { arbitrary: fc.integer({ min: 1, max: 3_000 }), weight: 1 },
      { arbitrary: fc.double({ min: 0, max: 400, noNaN: true }), weight: 1 },
    );
    const seen = { allowed: 0, denied: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0.5, 1, 2.5, 10),
        fc.array(advanceMs, { minLength: 1, maxLength: 40 }),
        async (limit, window, advances) => {
          const key = `approx:twin:${++run}`;
          const memory = new MemoryStore({ now: () => nowMs });
          for (const advance of advances) {
            nowMs += advance;
            const fromLua = await decide(timed, key, limit, window);
            expect(await decide(memory, key, limit, window)).toEqual(fromLua);
            seen[fromLua.allowed ? 'allowed' : 'denied']++;
          }
        },
      ),
      { numRuns: 60 },
    );
    expect(seen.allowed).toBeGreaterThan(0);
    expect(seen.denied).toBeGreaterThan(0);
  });

  it('remembers a denial locally: a flood from a denied key costs Redis nothing', async () => {
    const store = new RedisStore({ client });
    await store.check(); // as the module does at start-up: it listens before it remembers
    const key = `approx:flood:${++run}`;
    const evalsBefore = await scriptCalls(client);
    expect((await decide(store, key, 1, 60)).allowed).toBe(true);
    expect((await decide(store, key, 1, 60)).allowed).toBe(false);
    const flood = await Promise.all(Array.from({ length: 200 }, () => decide(store, key, 1, 60)));
    expect(flood.filter((d) => d.allowed)).toHaveLength(0);
    expect(await scriptCalls(client)).toBe(evalsBefore + 2);
  });

  it('is what factory.slidingWindowLimiter({ approximate: true }) runs, under its own prefix', async () => {
    const factory = new RateLimiterFactory(new RedisStore({ client }));
    const limiter = factory.slidingWindowLimiter({
      key: 'f',
      limit: 2,
      window: 60,
      approximate: true,
    });
    expect([
      await limiter.tryAcquire(),
      await limiter.tryAcquire(),
      await limiter.tryAcquire(),
    ]).toEqual([true, true, false]);
    expect((await client.get('slidingWindowApprox:f'))?.split(' ').slice(1)).toEqual(['2', '0']);
    expect(await client.exists('slidingWindow:f')).toBe(0);
  });
});

/** Script calls Redis has run so far (EVALSHA and EVAL, whatever sends them). */
async function scriptCalls(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  let calls = 0;
  for (const match of stats.matchAll(/cmdstat_(?:evalsha|eval|fcall):calls=(\d+)/g))
    calls += Number(match[1]);
  return calls;
}

describe('approximateSlidingWindowLimit on a 3-master Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0 });
    client = cluster.client();
  }, 60_000);
  afterAll(() => cluster?.stop());

  it('keeps each limit in one key on the master of its slot, exactly, on every master', async () => {
    const factory = new RateLimiterFactory(new RedisStore({ client }));
    const keys = Array.from({ length: 12 }, (_, i) => `cl${i}`);
    const calls = keys.flatMap((key) => Array.from({ length: 30 }, () => key));
    const results = await Promise.all(
      calls.map((key) =>
        factory
          .slidingWindowLimiter({ key, limit: 10, window: 3_600, approximate: true })
          .tryAcquire(),
      ),
    );
    const allowed = new Map<string, number>();
    results.forEach((ok, i) => ok && allowed.set(calls[i], (allowed.get(calls[i]) ?? 0) + 1));
    expect(keys.map((key) => allowed.get(key))).toEqual(keys.map(() => 10));
    const found = await cluster.keys('slidingWindowApprox:*');
    expect(found).toHaveLength(12);
    const owners = await Promise.all(found.map(({ key }) => cluster.masterForKey(key)));
    expect(found.map(({ port }) => port)).toEqual(owners);
    expect(new Set(owners).size).toBe(3);
  });
});
