import { Test, TestingModule } from '@nestjs/testing';
import { RateLimitEvent, RateLimiterModule, StoreUnavailableError } from '../../src';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * A direct `evaluate` on the module's failure-policy store (the store's API, as a caller
 * holding the store uses it) reports its store error under the store API's label,
 * 'RateLimiterFactory', as the factory's own decisions are: never an empty `limit`.
 */
describe("a direct evaluate's store error", () => {
  let redis: RedisServer;
  let moduleRef: TestingModule;
  const events: RateLimitEvent[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    moduleRef = await Test.createTestingModule({
      imports: [
        RateLimiterModule.forRoot({
          redis: redis.url,
          onStoreError: 'fallback',
          storeTimeout: 100,
          onDecision: (event) => events.push(event),
        }),
      ],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    await redis.kill();
  });
  afterAll(async () => {
    await moduleRef?.close();
    await redis?.stop();
  });

  it("with Redis down: one store-error event, limit 'RateLimiterFactory', then memory's answer", async () => {
    const store = moduleRef.get(FailurePolicyStore);
    const params = countLimitParams({ limit: 1, period: 60 });
    const decide = () =>
      store.evaluate({
        algorithm: countLimit,
        key: 'countLimit:direct',
        params,
        request: { permits: 1 },
      });
    expect([(await decide()).allowed, (await decide()).allowed]).toEqual([true, false]);
    expect(events.map((event) => [event.outcome, event.limit, event.name, event.key])).toEqual([
      ['store-error', 'RateLimiterFactory', undefined, 'countLimit:direct'],
      ['store-error', 'RateLimiterFactory', undefined, 'countLimit:direct'],
    ]);
    expect(events[0].error).toBeInstanceOf(StoreUnavailableError);
  });
});
