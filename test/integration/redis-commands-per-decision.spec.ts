import Redis from 'ioredis';
import { approximateSlidingWindowLimit } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { approximateSlidingWindowLimitParams } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.model';
import {
  concurrencyLimit,
  concurrencyLimitOps,
} from '../../src/algorithms/concurrency-limit/concurrency-limit.definition';
import { concurrencyLimitParams } from '../../src/algorithms/concurrency-limit/concurrency-limit.model';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { leakyBucketLimit } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitParams } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { RedisStore } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Commands the scripts ran, by name: what Redis did for the decisions, from INFO commandstats. */
const CALLS_OUTSIDE_SCRIPTS = new Set([
  'evalsha',
  'eval',
  'fcall',
  'function',
  'info',
  'config',
  'time',
  'script',
]);

async function commandsRun(admin: Redis): Promise<Record<string, number>> {
  const stats = await admin.info('commandstats');
  const commands: Record<string, number> = {};
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    if (!CALLS_OUTSIDE_SCRIPTS.has(name.split('|')[0])) commands[name] = Number(calls);
  }
  return commands;
}

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

/** Each algorithm at a limit of 50, its params and the request of decision i. */
const ALGORITHMS: [string, AnyAlgorithm, object, (i: number) => unknown][] = [
  ['a counter', countLimit, countLimitParams({ limit: 50, period: 60 }), () => undefined],
  [
    'a token bucket',
    rateLimit,
    rateLimitParams({ rate: 1, burst: 50 }),
    () => ({ permits: 1, timeoutMicros: 0 }),
  ],
  [
    'a sliding log',
    slidingWindowLimit,
    slidingWindowLimitParams({ limit: 50, window: 60 }),
    (i) => ({ id: `request-${i}` }),
  ],
  [
    'an approximate sliding window',
    approximateSlidingWindowLimit,
    approximateSlidingWindowLimitParams({ limit: 50, window: 60, approximate: true }, 'test'),
    () => ({ permits: 1 }),
  ],
  [
    'a leaky bucket',
    leakyBucketLimit,
    leakyBucketLimitParams({ capacity: 50, rate: 1 }),
    () => ({ permits: 1 }),
  ],
  [
    'a concurrency limit',
    concurrencyLimit,
    concurrencyLimitParams({ max: 50, lease: 60 }),
    (i) => ({ op: 'acquire', id: `request-${i}` }),
  ],
];

/**
 * Redis's work per decision: 100 decisions one after another on one key of a
 * limit of 50 (50 allowed, 50 denied), on a clock that stands still, every command the
 * scripts ran counted.
 */
describe('Redis runs only what a decision needs', () => {
  let redis: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    store = new RedisStore({ client: redis.client(), now: () => 1_000_000, cacheDenials: false });
  });
  afterAll(() => redis.stop());
  beforeEach(() => admin.config('RESETSTAT'));

  async function decide(
    algorithm: AnyAlgorithm,
    key: string,
    params: object,
    request: (i: number) => unknown,
  ): Promise<number> {
    let allowed = 0;
    for (let i = 0; i < 100; i++) {
      if ((await store.evaluate({ algorithm, key, params, request: request(i) })).allowed)
        allowed++;
    }
    return allowed;
  }

  const withoutBlock: Record<string, Record<string, number>> = {
    // INCRBY then PTTL each (count-limit.incr.lua): the new window's also sets its TTL
    // (PEXPIRE), a denial takes its permit back (INCRBY -1). The window's end is its TTL
    // (keeping it in the value cost memory and bought no Redis CPU: bench/analysis.md).
    'a counter': { incrby: 150, pttl: 100, pexpire: 1 },
    'a token bucket': { get: 100, set: 50 },
    // One read of the log each (the block, if any, among its members); a write when allowed.
    'a sliding log': { zrange: 100, zadd: 50, pexpire: 50 },
    'an approximate sliding window': { get: 100, set: 50 },
    'a leaky bucket': { get: 100, set: 50 },
    'a concurrency limit': { zrange: 100, zadd: 50, pexpire: 50 },
  };

  it.each(ALGORITHMS)(
    '%s without block: one read of its key per decision, one write when allowed',
    async (name, algorithm, params, request) => {
      expect(await decide(algorithm, `plain:${name}`, params, request)).toBe(50);
      expect(await commandsRun(admin)).toEqual(withoutBlock[name]);
    },
  );

  const withBlock: Record<string, Record<string, number>> = {
    // The 51st decision is denied and blocks (PTTL, GET, SET); the 49 after it find the
    // block in their one GET.
    // The counter reads its window's end (PTTL) when allowed and when it blocks.
    'a counter': { get: 101, set: 2, incrby: 49, pttl: 51 },
    'a token bucket': { get: 101, set: 51, pttl: 1 },
    'a sliding log': { zrange: 100, zadd: 51, pexpire: 51, pttl: 1 },
    'an approximate sliding window': { get: 101, set: 51, pttl: 1 },
    'a leaky bucket': { get: 101, set: 51, pttl: 1 },
  };

  it.each(ALGORITHMS.filter(([name]) => withBlock[name]))(
    '%s with block: the block is read with the state, never on its own',
    async (name, algorithm, params, request) => {
      const blocked = { ...params, blockMicros: 10_000_000 };
      expect(await decide(algorithm, `blocked:${name}`, blocked, request)).toBe(50);
      expect(await commandsRun(admin)).toEqual(withBlock[name]);
    },
  );

  it('a concurrency limit blocked by hand: each acquire finds the block in its one read', async () => {
    const [, algorithm, params, request] = ALGORITHMS[5];
    await store.evaluate({
      algorithm: concurrencyLimitOps.block,
      key: 'blocked:concurrency',
      params,
      request: 10_000_000,
    });
    await admin.config('RESETSTAT');
    expect(await decide(algorithm, 'blocked:concurrency', params, request)).toBe(0);
    expect(await commandsRun(admin)).toEqual({ zrange: 100 });
  });
});
