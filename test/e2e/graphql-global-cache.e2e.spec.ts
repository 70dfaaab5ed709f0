import {
  CallHandler,
  ExecutionContext,
  Injectable,
  Module,
  NestInterceptor,
  UseGuards,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { Query, Resolver } from '@nestjs/graphql';
import { Observable } from 'rxjs';
import { CountLimit, LimitType, RateLimiterModule } from '../../src';
import { graphqlModuleFor, GqlAuthGuard } from '../helpers/graphql-app';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { answerFromCache } from '../helpers/response-cache';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** The app's own global cache: a field resolved before is answered again from memory. */
@Injectable()
class FieldCache implements NestInterceptor {
  private readonly results = new Map<string, unknown>();
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return answerFromCache(this.results, context.getHandler().name, next);
  }
}

@Resolver()
class AccountResolver {
  @Query(() => String)
  @UseGuards(GqlAuthGuard)
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  me() {
    return 'me';
  }
}

describe.each(PLATFORMS)('a global cache interceptor of the app, on GraphQL on %s', (platform) => {
  let redis: RedisServer;
  let close: () => Promise<void>;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url }), graphqlModuleFor(platform)],
      providers: [AccountResolver, { provide: APP_INTERCEPTOR, useClass: FieldCache }],
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

  it('cannot answer a resolver past its deferred USER limit', async () => {
    const results = [];
    for (let i = 0; i < 4; i++) {
      const reply = await call(port, {
        method: 'POST',
        path: '/graphql',
        json: { query: '{ me }' },
        headers: { 'x-user': 'alice' },
      });
      results.push(reply.body.data?.me ?? reply.body.errors?.[0]?.extensions?.statusCode);
    }
    expect(results).toEqual(['me', 'me', 429, 429]);
  });
});
