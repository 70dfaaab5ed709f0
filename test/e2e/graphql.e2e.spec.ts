import { ApolloDriver, ApolloDriverConfig } from '@nestjs/apollo';
import { Module } from '@nestjs/common';
import { Args, GraphQLModule, Int, Query, Resolver } from '@nestjs/graphql';
import { MercuriusDriver, MercuriusDriverConfig } from '@nestjs/mercurius';
import Redis from 'ioredis';
import { CountLimit, LimitType, RateLimit, RateLimiterFactory, RateLimiterModule } from '../../src';
import { call, HttpReply, Platform, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** 30 permits, one back every 1024 s. */
const GENERATED = { rate: 1 / 1024, burst: 30 * 1024 };

@Resolver()
class QuotaResolver {
  @Query(() => String)
  @CountLimit({ limitType: LimitType.IP, limit: 2, period: 60 })
  perIp() {
    return 'ok';
  }

  @Query(() => String)
  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 60 })
  perUser() {
    return 'ok';
  }

  @Query(() => String)
  @CountLimit({ key: 'tenant:#{headers["x-tenant"]}', limit: 1, period: 60 })
  perTenant() {
    return 'ok';
  }

  @Query(() => String, { nullable: true })
  @CountLimit({ limit: 3, period: 60 })
  shared() {
    return 'ok';
  }

  /** Reserves 10 permits of 30; costs one per character of its result. */
  @Query(() => String)
  @RateLimit({
    key: 'generated',
    ...GENERATED,
    permits: 10,
    settle: (_ctx, { result }) => (result as string).length,
  })
  generate(@Args('length', { type: () => Int }) length: number) {
    return 'x'.repeat(length);
  }
}

const DRIVERS: Record<Platform, { name: string; graphql: any }> = {
  express: {
    name: 'Apollo',
    graphql: GraphQLModule.forRoot<ApolloDriverConfig>({
      driver: ApolloDriver,
      autoSchemaFile: true,
      // The HTTP request and response, for keys and headers.
      context: ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }),
    }),
  },
  fastify: {
    name: 'Mercurius',
    graphql: GraphQLModule.forRoot<MercuriusDriverConfig>({
      driver: MercuriusDriver,
      autoSchemaFile: true,
      // Its query cache is an ES module that mercurius imports dynamically: not under Jest.
      cache: false,
    }),
  },
};

describe.each(['express', 'fastify'] as const)('GraphQL resolvers on %s', (platform) => {
  let redis: RedisServer;
  let admin: Redis;
  let close: () => Promise<void>;
  let port: number;
  let factory: RateLimiterFactory;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          redis: redis.url,
          resolveUser: (req) => req.headers['x-user'],
        }),
        DRIVERS[platform].graphql,
      ],
      providers: [QuotaResolver],
    })
    class GraphqlModule {}
    const started = await startApp(GraphqlModule, platform);
    port = started.port;
    close = () => started.app.close();
    factory = started.app.get(RateLimiterFactory);
  });
  afterAll(async () => {
    await close?.();
    await redis?.stop();
  });

  const query = (text: string, headers: Record<string, string> = {}, localAddress?: string) =>
    call(port, { method: 'POST', path: '/graphql', json: { query: text }, headers, localAddress });
  const denial = (reply: HttpReply) => reply.body.errors?.[0];

  it(`${DRIVERS[platform].name}: an IP limit reads the HTTP request; a denial is a GraphQL error`, async () => {
    const replies = [];
    for (let i = 0; i < 3; i++) replies.push(await query('{ perIp }', {}, '127.0.0.2'));
    expect(replies.map((reply) => reply.body.data?.perIp ?? null)).toEqual(['ok', 'ok', null]);
    expect(replies[0].headers['x-ratelimit-limit']).toBe('2');
    expect(replies[1].headers['x-ratelimit-remaining']).toBe('0');
    expect(denial(replies[2])).toMatchObject({
      message: 'Too Many Requests',
      path: ['perIp'],
      extensions: { code: 'TOO_MANY_REQUESTS', statusCode: 429, retryAfter: 60 },
    });
    expect(replies[2].headers['retry-after']).toBe('60');
    // Another client address has its own count.
    expect((await query('{ perIp }', {}, '127.0.0.3')).body.data).toEqual({ perIp: 'ok' });
    expect(await admin.get('countLimit:~QuotaResolver.perIp:127.0.0.2')).not.toBeNull();
  });

  it('a USER limit and a key template read the HTTP request behind the resolver', async () => {
    const ann = { 'x-user': 'ann' };
    expect((await query('{ perUser }', ann)).body.data).toEqual({ perUser: 'ok' });
    expect(denial(await query('{ perUser }', ann))?.extensions?.statusCode).toBe(429);
    expect((await query('{ perUser }', { 'x-user': 'bob' })).body.data).toEqual({ perUser: 'ok' });

    expect((await query('{ perTenant }', { 'x-tenant': 'acme' })).body.data).toEqual({
      perTenant: 'ok',
    });
    expect(denial(await query('{ perTenant }', { 'x-tenant': 'acme' }))?.extensions?.code).toBe(
      'TOO_MANY_REQUESTS',
    );
    expect(await admin.exists('countLimit:~QuotaResolver.perUser:ann')).toBe(1);
    const missing = denial(await query('{ perTenant }'));
    expect(missing?.extensions).toMatchObject({ code: 'BAD_REQUEST', statusCode: 400 });
  });

  it('several limited fields in one query each count once per resolver call', async () => {
    const first = await query('{ a: shared b: shared }');
    expect(first.body.data).toEqual({ a: 'ok', b: 'ok' });
    const second = await query('{ a: shared b: shared }');
    const values = Object.values(second.body.data as Record<string, string | null>);
    expect(values.sort()).toEqual(['ok', null].sort());
    expect(second.body.errors).toHaveLength(1);
    expect(second.body.errors[0].extensions.statusCode).toBe(429);
  });

  it("settle reads the resolver's result: 10 reserved, 3 kept", async () => {
    expect((await query('{ generate(length: 3) }')).body.data).toEqual({ generate: 'xxx' });
    const left = await factory.rateLimiter({ key: 'generated', ...GENERATED }).peek();
    expect(left.remaining).toBe(27);
  });
});
