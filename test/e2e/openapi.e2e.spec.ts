import { Controller, Get, HttpCode, INestApplication, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiTooManyRequestsResponse, DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import {
  ConcurrencyLimit,
  CountLimit,
  LimitType,
  RateLimiterModule,
  RateLimiterModuleOptions,
  SkipRateLimit,
  SlidingWindowLimit,
} from '../../src';

/** Each describe block gets its own controllers: documentation is metadata on their methods. */
function controllers() {
  @Controller('quotes')
  class QuotesController {
    @Get()
    @CountLimit({ name: 'per-minute', limitType: LimitType.IP, limit: 5, period: 60 })
    @SlidingWindowLimit({ name: 'hourly', key: 'quotes:#{query.symbol}', limit: 100, window: '1h' })
    list() {
      return [];
    }

    @Post()
    @ConcurrencyLimit({ max: (ctx) => (ctx.user ? 4 : 1) })
    create() {
      return {};
    }

    @Post('bulk')
    @HttpCode(202)
    @CountLimit({ limit: 1, period: 10 })
    @ApiTooManyRequestsResponse({ description: 'Ours' })
    bulk() {
      return {};
    }

    @Get('free')
    free() {
      return 'free';
    }
  }

  @Controller('health')
  @SkipRateLimit()
  class HealthController {
    @Get()
    check() {
      return 'ok';
    }
  }
  return [QuotesController, HealthController];
}

async function documentOf(options: RateLimiterModuleOptions | undefined, classes: Function[]) {
  @Module({
    imports: options ? [RateLimiterModule.forRoot(options)] : [],
    controllers: classes as any[],
  })
  class AppModule {}
  // As an app's main.ts does it: the document is built before the app is initialised.
  const app: INestApplication = await NestFactory.create(AppModule, { logger: false });
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder().setTitle('Quotes').build(),
  );
  await app.close();
  return document;
}

describe('OpenAPI documents with @nestjs/swagger installed', () => {
  const classes = controllers();
  let limited: Awaited<ReturnType<typeof documentOf>>;
  let plain: Awaited<ReturnType<typeof documentOf>>;

  beforeAll(async () => {
    // The same controllers without the module first: what the app documents on its own.
    plain = JSON.parse(JSON.stringify(await documentOf(undefined, controllers())));
    limited = await documentOf({ headers: 'both', defaults: [] }, classes);
  });

  it('documents the 429 of a limited route, with its headers and body', () => {
    const responses = limited.paths['/quotes'].get!.responses as Record<string, any>;
    expect(Object.keys(responses).sort()).toEqual(['200', '429']);
    expect(responses['200']).toEqual(plain.paths['/quotes'].get!.responses['200']);
    expect(Object.keys(responses['429'].headers).sort()).toEqual([
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
    expect(responses['429'].headers['Retry-After'].schema).toEqual({ type: 'integer' });
    expect(responses['429'].content['application/json'].schema.properties).toMatchObject({
      statusCode: { type: 'integer', example: 429 },
      retryAfter: { type: 'integer' },
    });
  });

  it('lists the route limits in x-ratelimit, in the decorators own units', () => {
    expect(limited.paths['/quotes'].get!['x-ratelimit' as never]).toEqual([
      {
        name: 'hourly',
        limit: '@SlidingWindowLimit',
        key: 'quotes:#{query.symbol}',
        options: { limit: 100, window: '1h' },
      },
      { name: 'per-minute', limit: '@CountLimit', key: 'IP', options: { limit: 5, period: 60 } },
    ]);
    expect(limited.paths['/quotes'].post!['x-ratelimit' as never]).toEqual([
      {
        name: 'concurrency',
        limit: '@ConcurrencyLimit',
        key: 'METHOD',
        options: { max: 'per request' },
      },
    ]);
  });

  it('keeps the route own status beside the 429, and a 429 the app documented itself', () => {
    expect(Object.keys(limited.paths['/quotes'].post!.responses).sort()).toEqual(['201', '429']);
    const bulk = limited.paths['/quotes/bulk'].post!.responses as Record<string, any>;
    expect(bulk['429']).toEqual(plain.paths['/quotes/bulk'].post!.responses['429']);
    expect(bulk['429'].description).toBe('Ours');
    expect(limited.paths['/quotes/bulk'].post!['x-ratelimit' as never]).toHaveLength(1);
  });

  it('leaves routes without limits byte for byte as they were', () => {
    expect(JSON.stringify(limited.paths['/quotes/free'])).toBe(
      JSON.stringify(plain.paths['/quotes/free']),
    );
    expect(JSON.stringify(limited.paths['/health'])).toBe(JSON.stringify(plain.paths['/health']));
  });
});

describe('OpenAPI headers follow the headers option', () => {
  it('documents Retry-After, RateLimit and RateLimit-Policy under ietf', async () => {
    const document = await documentOf({ headers: 'ietf' }, controllers());
    const tooMany = (document.paths['/quotes'].get!.responses as Record<string, any>)['429'];
    expect(Object.keys(tooMany.headers).sort()).toEqual([
      'RateLimit',
      'RateLimit-Policy',
      'Retry-After',
    ]);
  });

  it('documents Retry-After and the X-RateLimit headers by default', async () => {
    const document = await documentOf({}, controllers());
    const tooMany = (document.paths['/quotes'].get!.responses as Record<string, any>)['429'];
    expect(Object.keys(tooMany.headers).sort()).toEqual([
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]);
  });
});

describe('OpenAPI documents of the module defaults', () => {
  it('documents a route limited only by a default, and leaves a skipped one alone', async () => {
    const plain = JSON.parse(JSON.stringify(await documentOf(undefined, controllers())));
    const document = await documentOf(
      { defaults: [{ algorithm: 'countLimit', name: 'global', limit: 100, period: 60 }] },
      controllers(),
    );
    const free = document.paths['/quotes/free'].get!;
    expect(Object.keys(free.responses).sort()).toEqual(['200', '429']);
    expect(free['x-ratelimit' as never]).toEqual([
      { name: 'global', limit: '@CountLimit', key: 'IP', options: { limit: 100, period: 60 } },
    ]);
    expect(JSON.stringify(document.paths['/health'])).toBe(JSON.stringify(plain.paths['/health']));
  });
});
