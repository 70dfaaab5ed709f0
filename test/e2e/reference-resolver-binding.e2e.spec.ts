import { INTERCEPTORS_METADATA } from '@nestjs/common/constants';
import { INestApplication, Module } from '@nestjs/common';
import { Resolver, ResolveReference } from '@nestjs/graphql';
import { Test } from '@nestjs/testing';
import {
  LimitType,
  RateLimiterModule,
  RateLimiterModuleOptions,
  RateLimitInterceptor,
} from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * Apollo Federation's `@ResolveReference()` handlers are resolvers too: a module default that
 * needs the interceptor (a concurrency slot to give back, a USER key) must get it bound to
 * them, or the slot is held until its lease ends. `@apollo/subgraph` is not installed, so
 * this checks the binding itself: what Nest reads when it builds the resolver's context.
 */
describe('a federation reference resolver with a module default that needs the interceptor', () => {
  let redis: RedisServer;
  let app: INestApplication | undefined;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });
  afterAll(() => redis.stop());

  it.each<[string, RateLimiterModuleOptions['defaults']]>([
    ['a concurrency default', [{ name: 'slots', algorithm: 'concurrencyLimit', max: 1 }]],
    [
      'a USER default',
      [
        {
          name: 'perUser',
          algorithm: 'countLimit',
          limit: 5,
          period: 60,
          limitType: LimitType.USER,
        },
      ],
    ],
  ])('%s: RateLimitInterceptor is its one interceptor', async (_label, defaults) => {
    @Resolver('User')
    class UsersResolver {
      @ResolveReference()
      resolveReference(reference: { id: string }) {
        return { id: reference.id };
      }
    }
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url, defaults })],
      providers: [UsersResolver],
    })
    class FederatedModule {}
    const moduleRef = await Test.createTestingModule({ imports: [FederatedModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const interceptor = app.get(RateLimitInterceptor);
    expect(
      Reflect.getMetadata(INTERCEPTORS_METADATA, UsersResolver.prototype.resolveReference),
    ).toEqual([interceptor]);
    expect(
      Reflect.getMetadata(INTERCEPTORS_METADATA, UsersResolver.prototype.resolveReference)[0],
    ).toBe(interceptor);
    expect(Reflect.getMetadata(INTERCEPTORS_METADATA, UsersResolver)).toBeUndefined();
  });
});
