import { Controller, Get, INestApplication, Module, UseGuards } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import {
  CountLimit,
  RateLimit,
  RateLimitGuard,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from '../../src';
import { eventually } from '../helpers/eventually';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

@Controller()
class LimitedController {
  @Get('ten')
  @CountLimit({ limit: 10, period: 60 })
  ten() {
    return 'ok';
  }

  @Get('two-limits')
  @CountLimit({ limit: 5, period: 60 })
  @RateLimit({ rate: 1, burst: 2 })
  twoLimits() {
    return 'ok';
  }
}

function appModule(limiter: RateLimiterModuleOptions, controllers: any[] = [LimitedController]) {
  @Module({ imports: [RateLimiterModule.forRoot(limiter)], controllers })
  class TestModule {}
  return TestModule;
}

describe.each(PLATFORMS)('RateLimitGuard on %s', (platform) => {
  let redis: RedisServer;
  const apps: INestApplication[] = [];
  const start = async (module: any) => {
    const started = await startApp(module, platform);
    apps.push(started.app);
    return started.port;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await redis.client().flushall();
  });
  afterAll(() => redis.stop());

  it('two app instances on one Redis share one exact limit: 40 requests, limit 10, 10 allowed', async () => {
    const a = await start(appModule({ redis: redis.url }));
    const b = await start(appModule({ redis: redis.url }));
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(i % 2 ? a : b, { path: '/ten' })),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(10);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(30);
  });

  it('all limits apply; headers describe the one with the least remaining', async () => {
    const port = await start(appModule({ redis: redis.url }));
    const first = await call(port, { path: '/two-limits' });
    expect(first.status).toBe(200);
    // count: 4 of 5 left; bucket: 1 of 2 left -> the bucket is described.
    expect([first.headers['x-ratelimit-limit'], first.headers['x-ratelimit-remaining']]).toEqual([
      '2',
      '1',
    ]);
    expect((await call(port, { path: '/two-limits' })).status).toBe(200);
    const denied = await call(port, { path: '/two-limits' });
    expect(denied.status).toBe(429);
    expect(denied.headers['retry-after']).toBe('1');
  });

  it('IETF headers', async () => {
    const port = await start(appModule({ redis: redis.url, headers: 'ietf' }));
    const reply = await call(port, { path: '/ten' });
    // A METHOD key holds no client value: its partition key is shown, hashed.
    expect(reply.headers['ratelimit-policy']).toMatch(/^"countLimit";q=10;w=60;pk=:[\w+/]{16}:$/);
    expect(reply.headers['ratelimit']).toMatch(/^"countLimit";r=9;t=60;pk=:[\w+/]{16}:$/);
    expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('headers: false sets none but still limits', async () => {
    const port = await start(appModule({ headers: false }));
    const reply = await call(port, { path: '/two-limits' });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.headers).filter((name) => name.includes('ratelimit'))).toEqual([]);
  });

  it('global: false limits only handlers that use @UseGuards(RateLimitGuard)', async () => {
    @Controller()
    class MixedController {
      @Get('open')
      @CountLimit({ limit: 1, period: 60 })
      open() {
        return 'ok';
      }

      @Get('guarded')
      @UseGuards(RateLimitGuard)
      @CountLimit({ limit: 1, period: 60 })
      guarded() {
        return 'ok';
      }
    }
    const port = await start(appModule({ global: false }, [MixedController]));
    expect([
      (await call(port, { path: '/open' })).status,
      (await call(port, { path: '/open' })).status,
    ]).toEqual([200, 200]);
    expect([
      (await call(port, { path: '/guarded' })).status,
      (await call(port, { path: '/guarded' })).status,
    ]).toEqual([200, 429]);
  });

  it('forRootAsync with inject and useFactory', async () => {
    @Module({ providers: [{ provide: 'REDIS_URL', useValue: redis.url }], exports: ['REDIS_URL'] })
    class ConfigModule {}
    @Module({
      imports: [
        RateLimiterModule.forRootAsync({
          imports: [ConfigModule],
          inject: ['REDIS_URL'],
          useFactory: (url: string) => ({ redis: url, keyPrefix: 'async:' }),
        }),
      ],
      controllers: [LimitedController],
    })
    class AsyncModule {}
    const port = await start(AsyncModule);
    expect((await call(port, { path: '/ten' })).status).toBe(200);
    expect(await redis.client().get('async:countLimit:~LimitedController.ten')).toBe(
      '1' as unknown,
    );
  });

  it('closes the connections it created on app.close(), and leaves a client passed in open', async () => {
    const admin = redis.client();
    const clientCount = async () =>
      String(await admin.client('LIST'))
        .trim()
        .split('\n').length;
    const baseline = await clientCount();
    const own = await startApp(appModule({ redis: redis.url }), platform);
    await call(own.port, { path: '/ten' });
    // The module's client, and the connection that listens for other servers' resets.
    expect(await eventually(clientCount, baseline + 2)).toBe(baseline + 2);
    await own.app.close();
    expect(await eventually(clientCount, baseline)).toBe(baseline);

    const mine = new Redis(redis.url);
    const shared = await startApp(appModule({ redis: mine }), platform);
    await call(shared.port, { path: '/ten' });
    expect(await eventually(clientCount, baseline + 2)).toBe(baseline + 2);
    await shared.app.close();
    // The client passed in stays open.
    expect(await eventually(clientCount, baseline + 1)).toBe(baseline + 1);
    expect(mine.status).toBe('ready');
    expect(await mine.ping()).toBe('PONG');
    mine.disconnect();
  });
});

describe('start-up validation', () => {
  const init = async (controller: any) => {
    const moduleRef = await Test.createTestingModule({
      imports: [appModule({}, [controller])],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    try {
      await app.init();
    } finally {
      await app.close();
    }
  };

  it('rejects rate: 0 naming class, method, option and value', async () => {
    @Controller()
    class BadRate {
      @Get() @RateLimit({ rate: 0 }) handler() {}
    }
    await expect(init(BadRate)).rejects.toThrow(
      "@RateLimit on BadRate.handler: option 'rate' must be a finite number > 0, got 0",
    );
  });

  it('rejects limit: -1', async () => {
    @Controller()
    class BadLimit {
      @Get() @CountLimit({ limit: -1 }) handler() {}
    }
    await expect(init(BadLimit)).rejects.toThrow(
      "@CountLimit on BadLimit.handler: option 'limit' must be an integer >= 1, got -1",
    );
  });

  it("rejects the template '#{body..x}'", async () => {
    @Controller()
    class BadTemplate {
      @Get() @CountLimit({ key: '#{body..x}' }) handler() {}
    }
    await expect(init(BadTemplate)).rejects.toThrow(
      "@CountLimit on BadTemplate.handler: Invalid key template '#{body..x}': expected a property name after '.' at position 7",
    );
  });

  it.each(['#{body.__proto__.x}', "#{body['constructor']}", '#{query.prototype}'])(
    'refuses %s',
    async (key) => {
      @Controller()
      class Hostile {
        @Get() @CountLimit({ key }) handler() {}
      }
      await expect(init(Hostile)).rejects.toThrow(/is not allowed/);
    },
  );

  it('rejects an unknown option, a typo', async () => {
    @Controller()
    class Typo {
      @Get() @CountLimit({ limit: 1, perod: 5 } as any) handler() {}
    }
    await expect(init(Typo)).rejects.toThrow(
      "@CountLimit on Typo.handler: unknown option 'perod' (did you mean 'period'?); the options are name, key, prefix, limitType, skip, shadow, settle, onStoreError, limit, period, permits, lease, block, count",
    );
  });

  it('rejects a class-level limit on every handler with the handler named', async () => {
    @Controller()
    @RateLimit({ burst: -1 })
    class BadClass {
      @Get() first() {}
    }
    await expect(init(BadClass)).rejects.toThrow(
      "@RateLimit on BadClass.first: option 'burst' must be a finite number >= 0, got -1",
    );
  });
});
