import { fixedWindowParams } from '../../src/algorithms/fixed-window/fixed-window.model';
import { fixedWindow } from '../../src/algorithms/fixed-window/fixed-window.algorithm';
import { tokenBucket } from '../../src/algorithms/token-bucket/token-bucket.algorithm';
import { tokenBucketParams } from '../../src/algorithms/token-bucket/token-bucket.model';
import { RedisStore, StoreUnavailableError } from '../../src';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe('RedisStore', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('runs different scripts in one tick on an auto-pipelining client that is still connecting', async () => {
    await redis.client().script('FLUSH');
    const store = new RedisStore({ client: redis.client({ enableAutoPipelining: true }) });
    const bucket = tokenBucketParams({ rate: 1, burst: 2 });
    const [counted, taken] = await Promise.all([
      store.evaluate(fixedWindow, 'ap:count', fixedWindowParams({ limit: 5, period: 60 }), undefined),
      store.evaluate(tokenBucket, 'ap:bucket', bucket, { permits: 1, timeoutMicros: 0 }),
    ]);
    expect([counted.allowed, counted.remaining, taken.allowed, taken.remaining]).toEqual([true, 4, true, 1]);
  });

  it('reports a failed evaluation as StoreUnavailableError, never as a denial', async () => {
    const client = redis.client();
    await client.set('wrongtype', 'x');
    await client.lpush('wrong:list', 'x');
    const store = new RedisStore({ client });
    const evaluation = store.evaluate(fixedWindow, 'wrong:list', fixedWindowParams({}), undefined);
    await expect(evaluation).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(evaluation).rejects.toThrow(/Redis failed to evaluate limiterFixedWindow: .*WRONGTYPE/);
  });
});
