import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import {
  CountLimit,
  LimitType,
  RateLimiterModule,
  RateLimiterModuleOptions,
  SlidingWindowLimit,
} from '../../src';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

@Controller()
class OneHandlerClash {
  @Get('sms')
  @CountLimit({ prefix: 'sms:', key: '#{phone}', limit: 1, period: 60 })
  @SlidingWindowLimit({ prefix: 'sms:', key: '#{phone}', limit: 5, window: 3600 })
  sms() {
    return 'ok';
  }
}

@Controller()
class TemplateClash {
  @Get('a')
  @CountLimit({ prefix: 'x:', key: 'user:#{id}', limit: 1, period: 60 })
  a() {
    return 'ok';
  }
}

@Controller()
class ConstantClash {
  @Get('b')
  @SlidingWindowLimit({ prefix: 'x:', key: 'user:42', limit: 5, window: 60 })
  b() {
    return 'ok';
  }
}

@Controller()
class TemplateBesideDerived {
  @Get('c')
  @CountLimit({ prefix: 'shared:', limitType: LimitType.IP, limit: 1, period: 60 })
  c() {
    return 'ok';
  }

  @Get('d')
  @SlidingWindowLimit({
    prefix: 'shared:',
    key: 'TemplateBesideDerived.#{x}',
    limit: 1,
    window: 60,
  })
  d() {
    return 'ok';
  }
}

@Controller()
class NoClash {
  // Same key, each kind under its own default prefix; and same kind sharing one key.
  @Get('e')
  @CountLimit({ key: 'e:#{q}', limit: 2, period: 60 })
  @SlidingWindowLimit({ key: 'e:#{q}', limit: 5, window: 60 })
  e() {
    return 'ok';
  }

  @Get('f')
  @CountLimit({ key: 'e:#{q}', limit: 5, period: 60 })
  f() {
    return 'ok';
  }
}

describe('limits of different kinds that could share a key', () => {
  let redis: RedisServer;
  const apps: INestApplication[] = [];
  const start = async (controllers: any[], options: Partial<RateLimiterModuleOptions> = {}) => {
    // A client of the test's own: an app whose start-up fails never closes what it opened.
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.client(), ...options })],
      controllers,
    })
    class AppModule {}
    const started = await startApp(AppModule, 'express');
    apps.push(started.app);
    return started.port;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(() => redis.stop());

  it('on one handler: start-up fails naming both', async () => {
    await expect(start([OneHandlerClash])).rejects.toThrow(
      "@SlidingWindowLimit on OneHandlerClash.sms and @CountLimit on OneHandlerClash.sms can write the same Redis key ('sms:*' and 'sms:*', * being a request value): limits of different kinds on one key break each other's state. Give one of them another prefix or key",
    );
  });

  it('a template on one handler and a constant key on another', async () => {
    await expect(start([TemplateClash, ConstantClash], { keyPrefix: 'app:' })).rejects.toThrow(
      "@CountLimit on TemplateClash.a and @SlidingWindowLimit on ConstantClash.b can write the same Redis key ('app:x:user:*' and 'app:x:user:42'",
    );
  });

  it('a template cannot spell a derived key (the ~ namespace), so these start', async () => {
    const port = await start([TemplateBesideDerived]);
    expect((await call(port, { path: '/d?x=c:127.0.0.1' })).status).toBe(200);
    expect((await call(port, { path: '/c' })).status).toBe(200);
  });

  it('different prefixes, or one kind on one key, start and limit as before', async () => {
    const port = await start([NoClash]);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(port, { path: '/e?q=1' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    // /f shares the counter of /e (3 so far) under a limit of 5.
    expect((await call(port, { path: '/f?q=1' })).status).toBe(200);
  });
});
