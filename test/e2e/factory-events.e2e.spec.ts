import { Test } from '@nestjs/testing';
import {
  RateLimitEvent,
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleOptions,
  StoreUnavailableError,
} from '../../src';
import { freePort } from '../helpers/free-port';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** The events of the module's factory: the factory reports its limiters' decisions itself. */
describe("the factory's events", () => {
  let redis: RedisServer;
  let deadUrl: string;
  beforeAll(async () => {
    redis = await startRedisServer();
    deadUrl = `redis://127.0.0.1:${await freePort()}`;
  });
  afterAll(() => redis.stop());

  async function factoryOf(options: RateLimiterModuleOptions) {
    const events: RateLimitEvent[] = [];
    const moduleRef = await Test.createTestingModule({
      imports: [
        RateLimiterModule.forRoot({ ...options, onDecision: (event) => events.push(event) }),
      ],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    const factory = moduleRef.get(RateLimiterFactory);
    return { factory, events, close: () => moduleRef.close() };
  }

  const shown = (events: RateLimitEvent[]) =>
    events.map((event) => [
      event.outcome,
      event.limit,
      event.name,
      event.key,
      event.decision?.remaining,
    ]);

  it('report decisions, not refunds, with the algorithm as name', async () => {
    const { factory, events, close } = await factoryOf({ redis: redis.url });
    const counter = factory.countLimiter({ key: 'refunded', limit: 2, period: 60 });
    expect(await counter.tryAcquire()).toBe(true);
    await counter.refund(1);
    expect(await factory.rateLimiter({ key: 'b', rate: 1, burst: 1 }).tryAcquire()).toBe(true);
    expect(shown(events)).toEqual([
      ['allowed', 'RateLimiterFactory', 'fixedWindow', 'countLimit:refunded', 1],
      ['allowed', 'RateLimiterFactory', 'tokenBucket', 'rateLimit:b', 0],
    ]);
    await close();
  });

  it("under 'fallback': the store error, then the memory's decision", async () => {
    const { factory, events, close } = await factoryOf({
      redis: deadUrl,
      onStoreError: 'fallback',
      storeTimeout: 100,
    });
    const limited = factory.countLimiter({ key: 'x', limit: 1, period: 60 });
    expect([await limited.tryAcquire(), await limited.tryAcquire()]).toEqual([true, false]);
    expect(shown(events)).toEqual([
      ['store-error', 'RateLimiterFactory', 'fixedWindow', 'countLimit:x', undefined],
      ['allowed', 'RateLimiterFactory', 'fixedWindow', 'countLimit:x', 0],
      ['store-error', 'RateLimiterFactory', 'fixedWindow', 'countLimit:x', undefined],
      ['denied', 'RateLimiterFactory', 'fixedWindow', 'countLimit:x', 0],
    ]);
    expect(events[0].error).toBeInstanceOf(StoreUnavailableError);
    await close();
  });

  it("under 'deny': the store error only, and the limiter throws", async () => {
    const { factory, events, close } = await factoryOf({
      redis: deadUrl,
      onStoreError: 'deny',
      storeTimeout: 100,
    });
    const attempt = factory.countLimiter({ key: 'y', limit: 1, period: 60 }).tryAcquire();
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(shown(events)).toEqual([
      ['store-error', 'RateLimiterFactory', 'fixedWindow', 'countLimit:y', undefined],
    ]);
    await close();
  });
});
