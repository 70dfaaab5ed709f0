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
  // Closed even when an assertion fails: an open module would keep jest from exiting.
  const modules: { close(): Promise<void> }[] = [];
  afterEach(() => Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close())));

  async function factoryOf(options: RateLimiterModuleOptions) {
    const events: RateLimitEvent[] = [];
    const moduleRef = await Test.createTestingModule({
      imports: [
        RateLimiterModule.forRoot({ ...options, onDecision: (event) => events.push(event) }),
      ],
    }).compile();
    moduleRef.useLogger(false);
    modules.push(moduleRef);
    await moduleRef.init();
    return { factory: moduleRef.get(RateLimiterFactory), events };
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
    const { factory, events } = await factoryOf({ redis: redis.url });
    const counter = factory.countLimiter({ key: 'refunded', limit: 2, period: 60 });
    expect(await counter.tryAcquire()).toBe(true);
    await counter.refund(1);
    expect(await factory.rateLimiter({ key: 'b', rate: 1, burst: 1 }).tryAcquire()).toBe(true);
    expect(shown(events)).toEqual([
      ['allowed', 'RateLimiterFactory', 'countLimit', 'countLimit:refunded', 1],
      ['allowed', 'RateLimiterFactory', 'rateLimit', 'rateLimit:b', 0],
    ]);
  });

  it('report no event for peek, block and reset: they decide nothing', async () => {
    const { factory, events } = await factoryOf({ redis: redis.url });
    const counter = factory.countLimiter({ key: 'looked', limit: 2, period: 60 });
    expect(await counter.tryAcquire()).toBe(true);
    expect((await counter.peek()).remaining).toBe(1);
    await counter.block(60);
    expect(await counter.tryAcquire()).toBe(false);
    await counter.reset();
    expect(await counter.tryAcquire()).toBe(true);
    const slots = factory.concurrencyLimiter({ key: 'looked', max: 1, lease: 60 });
    expect((await slots.peek()).remaining).toBe(1);
    expect(shown(events)).toEqual([
      ['allowed', 'RateLimiterFactory', 'countLimit', 'countLimit:looked', 1],
      ['denied', 'RateLimiterFactory', 'countLimit', 'countLimit:looked', 0],
      ['allowed', 'RateLimiterFactory', 'countLimit', 'countLimit:looked', 1],
    ]);
  });

  it("under 'fallback': the store error, then the memory's decision", async () => {
    const { factory, events } = await factoryOf({
      redis: deadUrl,
      onStoreError: 'fallback',
      storeTimeout: 100,
    });
    const limited = factory.countLimiter({ key: 'x', limit: 1, period: 60 });
    expect([await limited.tryAcquire(), await limited.tryAcquire()]).toEqual([true, false]);
    expect(shown(events)).toEqual([
      ['store-error', 'RateLimiterFactory', 'countLimit', 'countLimit:x', undefined],
      ['allowed', 'RateLimiterFactory', 'countLimit', 'countLimit:x', 0],
      ['store-error', 'RateLimiterFactory', 'countLimit', 'countLimit:x', undefined],
      ['denied', 'RateLimiterFactory', 'countLimit', 'countLimit:x', 0],
    ]);
    expect(events[0].error).toBeInstanceOf(StoreUnavailableError);
  });

  it("under 'deny': the store error only, and the limiter throws", async () => {
    const { factory, events } = await factoryOf({
      redis: deadUrl,
      onStoreError: 'deny',
      storeTimeout: 100,
    });
    const attempt = factory.countLimiter({ key: 'y', limit: 1, period: 60 }).tryAcquire();
    await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(shown(events)).toEqual([
      ['store-error', 'RateLimiterFactory', 'countLimit', 'countLimit:y', undefined],
    ]);
  });
});
