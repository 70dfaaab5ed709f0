import Redis from 'ioredis';
import { ChildProcess } from 'node:child_process';
import { RateLimiterFactory, RedisStore } from '../../src';
import { spawnChildScript } from '../helpers/child-app';
import { RedisServer, startRedisServer, stopProcess } from '../helpers/redis-server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once `child` has printed a line matching `marker`. */
function printed(child: ChildProcess, marker: RegExp, timeoutMs = 60_000): Promise<string> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${marker}:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!marker.test(output)) return;
      clearTimeout(timer);
      resolve(output);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
  });
}

/**
 * What a lease gives back goes to the window and the state it was taken from, never to the
 * next: a lease ended late (the app stopped, a CPU-bound request) must not add permits to a
 * window that did not lend them, and a bucket must never hold, with what a lease holds,
 * more than its size.
 */
describe('what a lease gives back, and when', () => {
  let redis: RedisServer;
  let admin: Redis;
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await redis.stop();
  });

  async function factory(): Promise<RateLimiterFactory> {
    const store = new RedisStore({ client: redis.client() });
    stores.push(store);
    await store.check();
    return new RateLimiterFactory(store);
  }

  it('a give-back sent after its window ended changes nothing in the next window (limit 10 per 2 s)', async () => {
    const key = 'late-give-back';
    const counter = `countLimit:${key}`;
    // A server leases all 10 permits of the window, uses 1, and is frozen (SIGSTOP) before
    // its lease ends, with 9 unused.
    const child = spawnChildScript('lease-attempts.ts', {
      REDIS_URL: redis.url,
      KEY: key,
      LIMIT: '10',
      PERIOD: '2',
      LEASE: '10',
      ATTEMPTS: '1',
      START_AT: '0',
      HANG: '1',
      STOP_SELF: '1',
    });
    try {
      const resumed = printed(child, /RESUMED/);
      expect(/ALLOWED (\d+)/.exec(await printed(child, /HANGING/))?.[1]).toBe('1');
      // Its window ends; the next begins with another server's request, and is more than
      // half over when 5 more have come.
      while ((await admin.pttl(counter)) > 0) await sleep(20);
      const limiter = (await factory()).countLimiter({ key, limit: 10, period: 2 });
      expect(await limiter.tryAcquire()).toBe(true);
      while ((await admin.pttl(counter)) > 800) await sleep(20);
      for (let i = 0; i < 5; i++) expect(await limiter.tryAcquire()).toBe(true);
      // The frozen server resumes: its overdue lease ends and gives back its 9.
      child.kill('SIGCONT');
      await resumed;
      const [count, ttl] = [await admin.get(counter), await admin.pttl(counter)];
      expect(count).toBe('6');
      expect(ttl).toBeGreaterThan(0); // still the same window: else the test saw nothing
    } finally {
      await stopProcess(child, 'SIGKILL');
    }
  }, 90_000);

  it.each([
    ['token bucket', 'rateLimiter'],
    ['leaky bucket', 'leakyBucketLimiter'],
  ] as const)('a %s never holds, with what a lease holds, more than its size', async (_, kind) => {
    // 10 per second, 10 at most: back to 10 free 1 s after it was emptied.
    const limiter = (await factory())[kind]({
      key: `cap:${kind}`,
      rate: 10,
      capacity: 10,
      lease: 10,
    });
    // The first lease takes all 10 and hands out 1: it holds 9.
    expect(await limiter.tryAcquire()).toBe(true);
    const leasedAtMs = performance.now();
    // Most of a second later the bucket has nearly 8 free again, while the lease lives.
    await sleep(800);
    const burstAtMs = performance.now();
    const allowed = (
      await Promise.all(Array.from({ length: 30 }, () => limiter.tryAcquire()))
    ).filter(Boolean).length;
    const burstMs = performance.now() - burstAtMs;
    expect(burstAtMs - leasedAtMs).toBeLessThan(1000); // else the lease had ended: no test
    // What a bucket of 10 admits at once: 10, and what frees up while the burst lasts;
    // nothing on top for what the lease kept while the bucket refilled.
    expect(allowed).toBeLessThanOrEqual(10 + Math.ceil((burstMs / 1000) * 10));
  });
});
