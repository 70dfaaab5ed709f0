import { Test } from '@nestjs/testing';
import {
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleOptions,
  StoreUnavailableError,
} from '../../src';
import { freePort } from '../helpers/free-port';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

describe("the module's factory", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  async function factoryOf(options: RateLimiterModuleOptions) {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(options)],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    return { factory: moduleRef.get(RateLimiterFactory), close: () => moduleRef.close() };
  }

  it('prefixes keys per algorithm, so two algorithms given one key never share state', async () => {
    const { factory, close } = await factoryOf({ redis: redis.url, keyPrefix: 'app:' });
    expect(await factory.rateLimiter({ key: 'k', rate: 1, burst: 2 }).tryAcquire()).toBe(true);
    expect(await factory.countLimiter({ key: 'k', limit: 2, period: 60 }).tryAcquire()).toBe(true);
    expect(await factory.countLimiter({ key: 'k', limit: 2, period: 60 }).tryAcquire()).toBe(true);
    expect(await factory.rateLimiter({ key: 'k', rate: 1, burst: 2 }).tryAcquire()).toBe(true);
    const admin = redis.client();
    expect((await admin.keys('app:*')).sort()).toEqual(['app:countLimit:k', 'app:rateLimit:k']);
    expect(await admin.get('app:countLimit:k')).toBe('2');
    await close();
  });

  describe('with Redis unreachable, follows storeTimeout and onStoreError', () => {
    let deadUrl: string;
    beforeAll(async () => {
      deadUrl = `redis://127.0.0.1:${await freePort()}`;
    });

    it("'deny' throws StoreUnavailableError, within storeTimeout", async () => {
      const { factory, close } = await factoryOf({
        redis: deadUrl,
        onStoreError: 'deny',
        storeTimeout: 100,
      });
      const started = Date.now();
      const attempt = factory.countLimiter({ key: 'x', limit: 1, period: 60 }).tryAcquire();
      await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(200);
      await close();
    });

    it("'allow' allows; 'fallback' limits in memory", async () => {
      const allow = await factoryOf({ redis: deadUrl, onStoreError: 'allow', storeTimeout: 100 });
      const open = allow.factory.countLimiter({ key: 'x', limit: 1, period: 60 });
      expect([await open.tryAcquire(), await open.tryAcquire()]).toEqual([true, true]);
      await allow.close();

      const fallback = await factoryOf({
        redis: deadUrl,
        onStoreError: 'fallback',
        storeTimeout: 100,
      });
      const limited = fallback.factory.countLimiter({ key: 'x', limit: 1, period: 60 });
      expect([await limited.tryAcquire(), await limited.tryAcquire()]).toEqual([true, false]);
      await fallback.close();
    });
  });
});
