import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { afterStartUpCheck, allCommandsRun } from '../helpers/command-stats';
import { allowedOf } from '../helpers/in-flight';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const DECISIONS = 20_000;
const IN_FLIGHT = 200;

/**
 * One hot key (a global quota): every decision of a busy server on it. Its decisions of one
 * engine call are one entry, and the denials after the limit are answered by the denial
 * cache, so Redis runs a handful of commands per call, not per decision.
 */
describe('one hot key, 20,000 decisions at 200 in flight', () => {
  let redis: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  let factory: RateLimiterFactory;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    store = new RedisStore({ client: redis.client() });
    factory = new RateLimiterFactory(store);
    await store.check();
    await afterStartUpCheck(admin);
  });
  afterAll(async () => {
    await store.close();
    await redis.stop();
  });
  beforeEach(() => admin.config('RESETSTAT'));

  it('a counter: exactly its limit allowed, at most 0.1 Redis commands per decision', async () => {
    const limiter = factory.countLimiter({ key: 'global', limit: 5_000, period: 600 });
    expect(await allowedOf(() => limiter.tryAcquire(), DECISIONS, IN_FLIGHT)).toBe(5_000);
    expect((await allCommandsRun(admin)) / DECISIONS).toBeLessThanOrEqual(0.1);
  });

  it('a token bucket: exactly its capacity allowed, at most 0.1 Redis commands per decision', async () => {
    // 5,000 permits, one more every 1,000 s: none comes back during the test.
    const limiter = factory.rateLimiter({ key: 'global', rate: 0.001, burst: 5_000_000 });
    expect(await allowedOf(() => limiter.tryAcquire(), DECISIONS, IN_FLIGHT)).toBe(5_000);
    expect((await allCommandsRun(admin)) / DECISIONS).toBeLessThanOrEqual(0.1);
  });
});
