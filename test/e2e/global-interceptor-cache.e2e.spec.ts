import {
  CallHandler,
  Controller,
  ExecutionContext,
  Get,
  INestApplication,
  Injectable,
  Module,
  NestInterceptor,
  Provider,
  Scope,
  UseGuards,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { Observable } from 'rxjs';
import { CountLimit, LimitType, RateLimiterModule } from '../../src';
import { HeaderAuthGuard } from '../helpers/header-auth-guard';
import { call, Platform, PLATFORMS } from '../helpers/http';
import { answerFromCache, httpCacheKey } from '../helpers/response-cache';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * The app's own response cache, as @nestjs/cache-manager's CacheInterceptor works: a GET
 * answered before is answered again from memory, without calling `next.handle()`.
 */
@Injectable()
class UrlCache implements NestInterceptor {
  private readonly responses = new Map<string, unknown>();
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return answerFromCache(this.responses, httpCacheKey(context), next);
  }
}

/** The same cache, built per request by Nest (its entries outlive each instance). */
const sharedResponses = new Map<string, unknown>();
@Injectable({ scope: Scope.REQUEST })
class RequestScopedUrlCache implements NestInterceptor {
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    return answerFromCache(sharedResponses, httpCacheKey(context), next);
  }
}

@Controller()
// Sets the user after the limiter's global guard: the USER limit waits for it.
@UseGuards(HeaderAuthGuard)
class CachedController {
  @Get('reports')
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  reports() {
    return 'fresh';
  }

  /** Only successes count, once the handler's chain has answered: from the cache too. */
  @Get('counted')
  @CountLimit({ limit: 2, period: 60, count: 'successes' })
  counted() {
    return 'fresh';
  }
}

type Registration =
  'APP_INTERCEPTOR' | 'a request-scoped APP_INTERCEPTOR' | 'useGlobalInterceptors';
const PROVIDERS: Record<Registration, Provider[]> = {
  APP_INTERCEPTOR: [{ provide: APP_INTERCEPTOR, useClass: UrlCache }],
  'a request-scoped APP_INTERCEPTOR': [
    { provide: APP_INTERCEPTOR, useClass: RequestScopedUrlCache },
  ],
  useGlobalInterceptors: [],
};

describe.each(PLATFORMS)('a global cache interceptor of the app on %s', (platform: Platform) => {
  let redis: RedisServer;
  let app: INestApplication | undefined;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await app?.close();
    app = undefined;
    sharedResponses.clear();
    await redis.client().flushall();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const boot = async (registration: Registration) => {
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url })],
      controllers: [CachedController],
      providers: PROVIDERS[registration],
    })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app =
      platform === 'fastify'
        ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
        : moduleRef.createNestApplication({ logger: false });
    if (registration === 'useGlobalInterceptors') app.useGlobalInterceptors(new UrlCache());
    await app.listen(0, '0.0.0.0');
    port = app.getHttpServer().address().port;
  };
  const statusesOf = async (path: string, times: number) => {
    const statuses: number[] = [];
    for (let i = 0; i < times; i++) {
      statuses.push((await call(port, { path, headers: { 'x-user': 'alice' } })).status);
    }
    return statuses;
  };

  it.each<Registration>([
    'APP_INTERCEPTOR',
    'a request-scoped APP_INTERCEPTOR',
    'useGlobalInterceptors',
  ])('cannot answer past a deferred USER limit (registered by %s)', async (registration) => {
    await boot(registration);
    expect(await statusesOf('/reports', 5)).toEqual([200, 200, 429, 429, 429]);
  });

  // Ours then runs both first of the global ones and on the method: counted once each.
  it('settles a `count` mode once per request, answered from the cache or not', async () => {
    await boot('APP_INTERCEPTOR');
    expect(await statusesOf('/counted', 5)).toEqual([200, 200, 429, 429, 429]);
  });
});
