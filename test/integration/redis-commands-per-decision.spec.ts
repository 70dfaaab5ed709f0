import Redis from 'ioredis';
import { approximateSlidingWindow } from '../../src/algorithms/approximate-sliding-window/approximate-sliding-window.definition';
import { approximateSlidingWindowParams } from '../../src/algorithms/approximate-sliding-window/approximate-sliding-window.model';
import { fixedWindow } from '../../src/algorithms/fixed-window/fixed-window.definition';
import { fixedWindowParams } from '../../src/algorithms/fixed-window/fixed-window.model';
import { leakyBucket } from '../../src/algorithms/leaky-bucket/leaky-bucket.definition';
import { leakyBucketParams } from '../../src/algorithms/leaky-bucket/leaky-bucket.model';
import { tokenBucket } from '../../src/algorithms/token-bucket/token-bucket.definition';
import { tokenBucketParams } from '../../src/algorithms/token-bucket/token-bucket.model';
import { RedisStore } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Commands the scripts ran, by name: what Redis did for the decisions, from INFO commandstats. */
const CALLS_OUTSIDE_SCRIPTS = new Set(['evalsha', 'eval', 'info', 'config', 'time', 'script']);

async function commandsRun(admin: Redis): Promise<Record<string, number>> {
  const stats = await admin.info('commandstats');
  const commands: Record<string, number> = {};
  for (const [, name, calls] of stats.matchAll(/^cmdstat_([a-z|]+):calls=(\d+)/gm)) {
    if (!CALLS_OUTSIDE_SCRIPTS.has(name.split('|')[0])) commands[name] = Number(calls);
  }
  return commands;
}

describe('Redis runs only what a decision needs (a limit without block)', () => {
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

  it('a counter: GET, then SET for a new window or PTTL (+ INCRBY when allowed); one GET, not two', async () => {
    const params = fixedWindowParams({ limit: 50, period: 60 });
    const allowed: boolean[] = [];
    for (let i = 0; i < 100; i++) {
      allowed.push((await store.evaluate(fixedWindow, 'counter', params, undefined)).allowed);
    }
    expect(allowed.filter(Boolean)).toHaveLength(50);
    // 1 new window (GET, SET), 49 allowed (GET, PTTL, INCRBY), 50 denied (GET, PTTL).
    expect(await commandsRun(admin)).toEqual({ get: 100, set: 1, pttl: 99, incrby: 49 });
  });

  it('a token bucket: GET, then SET when allowed; one GET, not two', async () => {
    const params = tokenBucketParams({ rate: 1, burst: 50 });
    const allowed: boolean[] = [];
    for (let i = 0; i < 100; i++) {
      const request = { permits: 1, timeoutMicros: 0 };
      allowed.push((await store.evaluate(tokenBucket, 'bucket', params, request)).allowed);
    }
    expect(allowed.filter(Boolean)).toHaveLength(50);
    expect(await commandsRun(admin)).toEqual({ get: 100, set: 50 });
  });

  it.each([
    ['a leaky bucket', () => store.evaluate(leakyBucket, 'leaky', leakyParams, { permits: 1 })],
    [
      'an approximate sliding window',
      () =>
        store.evaluate(approximateSlidingWindow, 'approximate', approximateParams, { permits: 1 }),
    ],
  ])('%s reads its key with one GET per decision, not two', async (_name, decide) => {
    const allowed: boolean[] = [];
    for (let i = 0; i < 100; i++) allowed.push((await decide()).allowed);
    expect(allowed.filter(Boolean)).toHaveLength(50);
    expect((await commandsRun(admin)).get).toBe(100);
  });
});

const leakyParams = leakyBucketParams({ capacity: 50, rate: 1 });
const approximateParams = approximateSlidingWindowParams(
  { limit: 50, window: 60, approximate: true },
  'test',
);
