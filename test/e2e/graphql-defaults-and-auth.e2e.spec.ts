import { Module, UseGuards } from '@nestjs/common';
import { Query, Resolver } from '@nestjs/graphql';
import Redis from 'ioredis';
import { CountLimit, LimitType, RateLimiterModule } from '../../src';
import { graphqlModuleFor, GqlAuthGuard } from '../helpers/graphql-app';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

@Resolver()
class AccountResolver {
  @Query(() => String)
  open() {
    return 'ok';
  }

  @Query(() => String)
  @UseGuards(GqlAuthGuard)
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  me() {
    return 'me';
  }
}

describe.each(['express', 'fastify'] as const)(
  'GraphQL defaults and USER after auth on %s',
  (platform) => {
    let redis: RedisServer;
    let admin: Redis;
    let close: () => Promise<void>;
    let port: number;

    beforeAll(async () => {
      redis = await startRedisServer();
      admin = redis.client();
      @Module({
        imports: [
          RateLimiterModule.forRoot({
            redis: redis.url,
            defaults: [{ name: 'short', algorithm: 'countLimit', limit: 5, period: 60 }],
          }),
          graphqlModuleFor(platform),
        ],
        providers: [AccountResolver],
      })
      class GraphqlModule {}
      const started = await startApp(GraphqlModule, platform);
      port = started.port;
      close = () => started.app.close();
    });
    afterAll(async () => {
      await close?.();
      await redis?.stop();
    });

    const query = async (text: string, headers: Record<string, string> = {}) => {
      const reply = await call(port, {
        method: 'POST',
        path: '/graphql',
        json: { query: text },
        headers,
      });
      return (
        reply.body.data?.[text.replace(/[{} ]/g, '')] ??
        reply.body.errors?.[0]?.extensions?.statusCode
      );
    };

    it('a resolver with no decorator gets the defaults, keyed by client IP', async () => {
      const results = [];
      for (let i = 0; i < 6; i++) results.push(await query('{ open }'));
      expect(results).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 429]);
      expect(await admin.exists('countLimit:~AccountResolver.open:127.0.0.1')).toBe(1);
    });

    it('a USER limit is keyed by the user a resolver-level guard set', async () => {
      const results = [];
      for (const user of ['alice', 'alice', 'bob', 'alice']) {
        results.push(await query('{ me }', { 'x-user': user }));
      }
      // The default ('short', 5 per IP) applies next to it and allows all four.
      expect(results).toEqual(['me', 'me', 'me', 429]);
      expect(await admin.get('countLimit:~AccountResolver.me:bob')).toBe('1');
      expect(await admin.exists('countLimit:~AccountResolver.me:ip:127.0.0.1')).toBe(0);
    });
  },
);
