import { INestApplicationContext } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RateLimiterFactory, RateLimiterModule, StoreErrorPolicy } from '../../src';
import { watchLateness } from '../helpers/lateness';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { collectGarbage } from '../helpers/collect-garbage';

const STORE_TIMEOUT_MS = 200;
const CONCURRENCY = 2_000;
const FROZEN_FOR_MS = 8_000;
/** The work of one loop turn that resolves a batch's callers, beyond timer lateness. */
const TURN_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const yieldTurn = () => new Promise((resolve) => setImmediate(resolve));

async function factoryOn(redis: RedisServer, onStoreError: StoreErrorPolicy) {
  const moduleRef = await Test.createTestingModule({
    imports: [
      RateLimiterModule.forRoot({
        redis: redis.url,
        onStoreError,
        storeTimeout: STORE_TIMEOUT_MS,
      }),
    ],
  }).compile();
  moduleRef.useLogger(false);
  await moduleRef.init();
  return { moduleRef, factory: moduleRef.get(RateLimiterFactory) };
}

/** Engine script calls Redis has run, as INFO commandstats counts them. */
async function scriptCalls(redis: RedisServer): Promise<number> {
  const stats = await redis.client().info('commandstats');
  return [...stats.matchAll(/cmdstat_(evalsha|eval|fcall):calls=(\d+)/g)].reduce(
    (sum, match) => sum + Number(match[2]),
    0,
  );
}

describe('2,000 callers against a frozen Redis', () => {
  let redis: RedisServer;
  let moduleRef: INestApplicationContext;
  let factory: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ moduleRef, factory } = await factoryOn(redis, 'allow'));
  });
  afterAll(async () => {
    redis.thaw();
    await moduleRef.close();
    await redis.stop();
  });

  it('keeps memory bounded, sends Redis only probes, and leaves its counters as they were', async () => {
    const limiter = (i: number) =>
      factory.countLimiter({ key: `load:${i % 100}`, limit: 1e6, period: 60 });
    for (let i = 0; i < 100; i++) expect(await limiter(i).tryAcquire()).toBe(true);
    const admin = redis.client();
    const countersBefore = await admin.mget(
      ...Array.from({ length: 100 }, (_, i) => `countLimit:load:${i}`),
    );
    collectGarbage();
    const before = process.memoryUsage();
    const callsBefore = await scriptCalls(redis);

    redis.freeze();
    const lateness = watchLateness();
    const until = performance.now() + FROZEN_FOR_MS;
    let calls = 0;
    let denied = 0;
    let slowestMs = 0;
    const caller = async (id: number) => {
      for (let i = id; performance.now() < until; i += CONCURRENCY) {
        const started = performance.now();
        if (!(await limiter(i).tryAcquire())) denied++; // 'allow': none
        slowestMs = Math.max(slowestMs, performance.now() - started);
        calls++;
        await yieldTurn();
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, id) => caller(id)));
    lateness.stop();
    collectGarbage();
    const after = process.memoryUsage();
    redis.thaw();
    await sleep(200);

    expect(denied).toBe(0);
    expect(calls).toBeGreaterThan(CONCURRENCY * 10);
    // A caller waits storeTimeout from the write of its call, which leaves at the end of the
    // turn it asked in (2,000 callers ask in one); its timer may fire late, and the timeout
    // is judged one turn later, after the replies waiting in the socket: three turns, each at
    // most the loop's measured lateness. One that waited for the frozen Redis would take 8 s.
    expect(slowestMs).toBeLessThan(STORE_TIMEOUT_MS + TURN_MS + 3 * lateness.turnMs());
    expect((after.rss - before.rss) / 2 ** 20).toBeLessThan(100);
    expect((after.heapUsed - before.heapUsed) / 2 ** 20).toBeLessThan(100);
    // Up to one batch per caller before the breaker opened, then one probe per 250 ms.
    expect((await scriptCalls(redis)) - callsBefore).toBeLessThan(200);
    const countersAfter = await admin.mget(
      ...Array.from({ length: 100 }, (_, i) => `countLimit:load:${i}`),
    );
    expect(countersAfter).toEqual(countersBefore);
  }, 30_000);
});

describe.each<StoreErrorPolicy>(['allow', 'deny', 'fallback'])(
  'factory calls against a frozen Redis, onStoreError %s',
  (policy) => {
    let redis: RedisServer;
    let moduleRef: INestApplicationContext;
    let factory: RateLimiterFactory;

    beforeAll(async () => {
      redis = await startRedisServer();
      ({ moduleRef, factory } = await factoryOn(redis, policy));
    });
    afterAll(async () => {
      redis.thaw();
      await moduleRef.close();
      await redis.stop();
    });

    it("each finishes within storeTimeout + 50 ms (and the loop's lateness), by the policy", async () => {
      const limiter = factory.countLimiter({ key: 'frozen', limit: 100, period: 60 });
      expect(await limiter.tryAcquire()).toBe(true);
      redis.freeze();
      const lateness = watchLateness();
      const outcomes: string[] = [];
      let slowestMs = 0;
      for (let round = 0; round < 5; round++) {
        const started = performance.now();
        const results = await Promise.allSettled(
          Array.from({ length: 20 }, () => limiter.tryAcquire()),
        );
        slowestMs = Math.max(slowestMs, performance.now() - started);
        for (const result of results) {
          outcomes.push(
            result.status === 'fulfilled'
              ? String(result.value)
              : (result.reason as Error).constructor.name,
          );
        }
      }
      lateness.stop();
      // As above: the turn the 20 asked in, their timer's, and the turn they are judged in.
      expect(slowestMs).toBeLessThan(STORE_TIMEOUT_MS + TURN_MS + 3 * lateness.turnMs());
      const expected = { allow: 'true', deny: 'StoreUnavailableError', fallback: 'true' }[policy];
      expect(new Set(outcomes)).toEqual(new Set([expected]));
    });
  },
);
