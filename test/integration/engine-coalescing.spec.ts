import Redis from 'ioredis';
import { approximateSlidingWindowLimit } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { approximateSlidingWindowLimitParams } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.model';
import {
  countLimit,
  countLimitDefinition,
} from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { leakyBucketLimit } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitParams } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { Decision, RedisStore } from '../../src';
import { commandsRun, ENGINE_CALL } from '../helpers/command-stats';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

/**
 * A hot key's decisions that leave in one engine call are one entry: one read and one write
 * of the key, whatever their number, and each answered as it would be alone.
 */
describe('decisions on one key in one call are coalesced', () => {
  let redis: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    store = new RedisStore({ client: redis.client(), now: () => 1_000_000, cacheDenials: false });
    await store.check();
  });
  afterAll(() => redis.stop());
  beforeEach(() => admin.config('RESETSTAT'));

  /** `count` decisions of one turn on `key`. */
  function atOnce(
    count: number,
    algorithm: AnyAlgorithm,
    key: string,
    params: object,
    request: (i: number) => unknown = () => undefined,
  ): Promise<Decision[]> {
    return Promise.all(
      Array.from({ length: count }, (_, i) =>
        store.evaluate({ algorithm, key, params, request: request(i) }),
      ),
    );
  }

  const ALGORITHMS: [
    string,
    AnyAlgorithm,
    object,
    (i: number) => unknown,
    Record<string, number>,
  ][] = [
    // New window: SET. A window already counting would be GET, PTTL, INCRBY.
    [
      'a counter',
      countLimit,
      countLimitParams({ limit: 50, period: 60 }),
      () => undefined,
      { get: 1, set: 1 },
    ],
    [
      'a token bucket',
      rateLimit,
      rateLimitParams({ rate: 1, burst: 50 }),
      () => ({ permits: 1, timeoutMicros: 0 }),
      { get: 1, set: 1 },
    ],
    [
      'a sliding log',
      slidingWindowLimit,
      slidingWindowLimitParams({ limit: 50, window: 60 }),
      (i) => ({ id: `r${i}` }),
      // One ZADD of the 50 members allowed; the denials read the log already read.
      { zrange: 1, zadd: 1, pexpire: 1 },
    ],
    [
      'a leaky bucket',
      leakyBucketLimit,
      leakyBucketLimitParams({ capacity: 50, rate: 1 }),
      () => ({ permits: 1 }),
      { get: 1, set: 1 },
    ],
    [
      'an approximate sliding window',
      approximateSlidingWindowLimit,
      approximateSlidingWindowLimitParams({ limit: 50, window: 60, approximate: true }, 'test'),
      () => ({ permits: 1 }),
      // The acquire run 100 times against the write-back cell: one GET, one SET.
      { get: 1, set: 1 },
    ],
  ];

  it.each(ALGORITHMS)(
    '%s: 100 decisions at once, 50 allowed, in one script call, one read and one write',
    async (name, algorithm, params, request, commands) => {
      const decisions = await atOnce(100, algorithm, `hot:${name}`, params, request);
      expect(decisions.map((d) => d.allowed)).toEqual([
        ...Array<boolean>(50).fill(true),
        ...Array<boolean>(50).fill(false),
      ]);
      expect(decisions.slice(0, 50).map((d) => d.remaining)).toEqual(
        Array.from({ length: 50 }, (_, i) => 49 - i),
      );
      expect(await commandsRun(admin)).toEqual({ [ENGINE_CALL]: 1, time: 1, ...commands });
    },
  );

  it('a token bucket of 50/s and capacity 1 gives 50 reservations at once successive slots', async () => {
    const params = rateLimitParams({ rate: 50, burst: 1 / 50 });
    const decisions = await atOnce(50, rateLimit, 'hot:slots', params, () => ({
      permits: 1,
      timeoutMicros: -1,
    }));
    expect(decisions.map((d) => d.waitMs)).toEqual(Array.from({ length: 50 }, (_, i) => i * 20));
    expect(await commandsRun(admin)).toEqual({ [ENGINE_CALL]: 1, time: 1, get: 1, set: 1 });
  });

  it('a denial inside a coalesced entry starts the block: every later decision finds it', async () => {
    const params = { ...countLimitParams({ limit: 3, period: 60 }), blockMicros: 10_000_000 };
    const decisions = await atOnce(6, countLimit, 'hot:block', params);
    expect(decisions.map((d) => [d.allowed, d.remaining, d.retryAfterMs])).toEqual([
      [true, 2, 0],
      [true, 1, 0],
      [true, 0, 0],
      [false, 0, 60_000],
      [false, 0, 10_000],
      [false, 0, 10_000],
    ]);
    // Blocked now: 3 more decisions find the block in one read.
    await admin.config('RESETSTAT');
    const blocked = await atOnce(3, countLimit, 'hot:block', params);
    expect(blocked.map((d) => [d.allowed, d.retryAfterMs])).toEqual(Array(3).fill([false, 10_000]));
    expect(await commandsRun(admin)).toEqual({ [ENGINE_CALL]: 1, time: 1, get: 1 });
  });

  it('an operation on the key between decisions keeps its place', async () => {
    const params = countLimitParams({ limit: 5, period: 60 });
    const key = 'hot:reset-between';
    const decisions = await Promise.all([
      store.evaluate({ algorithm: countLimit, key, params, request: { permits: 2 } }),
      store.evaluate({ algorithm: countLimit, key, params, request: { permits: 2 } }),
      store.evaluate({
        algorithm: countLimitDefinition.ops.reset,
        key,
        params,
        request: undefined,
      }),
      store.evaluate({ algorithm: countLimit, key, params, request: { permits: 4 } }),
      store.evaluate({ algorithm: countLimit, key, params, request: { permits: 2 } }),
    ]);
    // The reset answers as a reset does; the decisions after it find the key empty.
    const [first, second, , third, fourth] = decisions;
    expect([first, second, third, fourth].map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 3],
      [true, 1],
      [true, 1],
      [false, 1],
    ]);
  });

  it('a coalesced entry that fails fails each of its decisions with the error', async () => {
    await admin.hset('hot:wrongtype', 'a', '1');
    const params = countLimitParams({ limit: 5, period: 60 });
    const outcomes = await Promise.allSettled(
      Array.from({ length: 3 }, () =>
        store.evaluate({ algorithm: countLimit, key: 'hot:wrongtype', params, request: undefined }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const outcome of outcomes) {
      expect(String((outcome as PromiseRejectedResult).reason.message)).toMatch(/WRONGTYPE/);
    }
  });
});
