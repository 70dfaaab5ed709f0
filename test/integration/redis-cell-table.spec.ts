import Redis from 'ioredis';
import {
  LeakyBucketLimiter,
  LimiterStore,
  MemoryStore,
  RateLimiterFactory,
  RedisStore,
} from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * redis-cell's own test table (`it_rate_limits` in src/cell/mod.rs): a limit of 5 (its
 * max_burst 4, plus one) refilled at 1 a second, requests of several volumes at given times.
 * Its expectations translated to our decision: `limited` is !allowed; its retry_after of -1
 * on an allowed request is our 0, and on a limited one (a volume it can never serve) stays
 * -1; durations are in ms.
 */
const CASES: [
  at: number,
  volume: number,
  remaining: number,
  resetMs: number,
  retryAfterMs: number,
  limited: boolean,
][] = [
  // A request larger than the maximum can never be made.
  [0, 6, 5, 0, -1, true],
  // Normal requests, limited once the burst is spent.
  [0, 1, 4, 1000, 0, false],
  [0, 1, 3, 2000, 0, false],
  [0, 1, 2, 3000, 0, false],
  [0, 1, 1, 4000, 0, false],
  [0, 1, 0, 5000, 0, false],
  [0, 1, 0, 5000, 1000, true],
  [3000, 1, 2, 3000, 0, false],
  [3100, 1, 1, 3900, 0, false],
  [4000, 1, 1, 4000, 0, false],
  [8000, 1, 4, 1000, 0, false],
  [9500, 1, 4, 1000, 0, false],
  // A volume of 0 peeks at the state.
  [9500, 0, 4, 1000, 0, false],
  // A larger volume uses more of the limit.
  [9500, 2, 2, 3000, 0, false],
  // A large volume cannot exceed the limit.
  [9500, 5, 2, 3000, 3000, true],
];

describe.each(['redis', 'memory'])("redis-cell's it_rate_limits table (%s store)", (storeName) => {
  const startMs = 1_700_000_000_000;
  let nowMs = startMs;
  let server: RedisServer | undefined;
  let client: Redis | undefined;
  let store: LimiterStore;

  beforeAll(async () => {
    if (storeName === 'redis') {
      server = await startRedisServer();
      client = server.client();
      store = new RedisStore({ client, now: () => nowMs });
    } else {
      store = new MemoryStore({ now: () => nowMs });
    }
  });
  afterAll(async () => {
    await store.close();
    await server?.stop();
  });

  it('matches remaining, reset, retry-after and limited in all 15 cases', async () => {
    const limiter: LeakyBucketLimiter = new RateLimiterFactory(store).leakyBucketLimiter({
      key: 'foo',
      capacity: 5,
      rate: 1,
    });
    const results = [];
    for (const [at, volume] of CASES) {
      nowMs = startMs + at;
      const { allowed, limit, remaining, resetMs, retryAfterMs } = await limiter.decide(volume);
      expect(limit).toBe(5);
      results.push([at, volume, remaining, resetMs, retryAfterMs, !allowed]);
    }
    expect(results).toEqual(CASES);
  });
});
