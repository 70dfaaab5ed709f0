import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit, RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller('dup')
@CountLimit({ limit: 3, period: 60 })
class DuplicateLimitsController {
  @Get('class-and-method')
  @CountLimit({ limit: 5, period: 60 })
  classAndMethod() {
    return 'ok';
  }
}

@Controller('windows')
class TwoWindowsController {
  @Get()
  @CountLimit({ limit: 2, period: 1 })
  @CountLimit({ limit: 4, period: 60 })
  twoWindows() {
    return 'ok';
  }
}

class InheritedBase {
  @Get()
  @CountLimit({ limit: 1, period: 60 })
  handle() {
    return 'ok';
  }
}
@Controller('inherit-a')
class InheritA extends InheritedBase {}
@Controller('inherit-b')
class InheritB extends InheritedBase {}

@Controller('shared')
class SharedKeyController {
  @Get('strict')
  @CountLimit({ key: 'shared', limit: 1, period: 60 })
  strict() {
    return 'ok';
  }

  @Get('loose')
  @CountLimit({ key: 'shared', limit: 5, period: 60 })
  loose() {
    return 'ok';
  }
}

function moduleWith(options: RateLimiterModuleOptions, controllers: any[]) {
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers })
  class TestModule {}
  return TestModule;
}

describe('several limits on real Redis: one key each', () => {
  let redis: RedisServer;
  let admin: Redis;
  const apps: INestApplication[] = [];
  const start = async (options: RateLimiterModuleOptions, controllers: any[]) => {
    const started = await startApp(moduleWith(options, controllers), 'express');
    apps.push(started.app);
    return started.port;
  };
  const statuses = async (port: number, path: string, times: number) => {
    const result: number[] = [];
    for (let i = 0; i < times; i++) result.push((await call(port, { path })).status);
    return result;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await admin.flushall();
  });
  afterAll(() => redis.stop());

  it('a class-level and a method-level limit of one kind keep separate state', async () => {
    const port = await start({ redis: redis.url }, [DuplicateLimitsController]);
    // Sharing one counter, each request would count twice and the 3rd would be denied.
    expect(await statuses(port, '/dup/class-and-method', 4)).toEqual([200, 200, 200, 429]);
    expect(
      (await admin.keys('countLimit:*DuplicateLimitsController.classAndMethod')).sort(),
    ).toEqual([
      'countLimit:#2:~DuplicateLimitsController.classAndMethod',
      'countLimit:~DuplicateLimitsController.classAndMethod',
    ]);
  });

  it('two windows on one method: 2 a second and 4 a minute', async () => {
    const port = await start({ redis: redis.url }, [TwoWindowsController]);
    expect(await statuses(port, '/windows', 3)).toEqual([200, 200, 429]);
    await pause(1100);
    // The second window opened. The request the second refused took nothing from the minute
    // (all or nothing), so the minute has 2 left; both deny the 5th, and a denial
    // counts nothing.
    expect(await statuses(port, '/windows', 3)).toEqual([200, 200, 429]);
    // Decorators apply bottom-up: the minute limit is the first, the second gets `#2:`.
    expect(await admin.get('countLimit:~TwoWindowsController.twoWindows')).toBe('4');
    expect(await admin.get('countLimit:#2:~TwoWindowsController.twoWindows')).toBe('2');
  });

  it('a handler inherited by two controllers is limited per controller', async () => {
    const port = await start({ redis: redis.url }, [InheritA, InheritB]);
    expect(await statuses(port, '/inherit-a', 2)).toEqual([200, 429]);
    expect(await statuses(port, '/inherit-b', 2)).toEqual([200, 429]);
    expect((await admin.keys('countLimit:~Inherit*')).sort()).toEqual([
      'countLimit:~InheritA.handle',
      'countLimit:~InheritB.handle',
    ]);
  });

  it("a denial remembered for one limit does not answer another limit's request on the same key", async () => {
    const port = await start({ redis: redis.url }, [SharedKeyController]);
    expect(await statuses(port, '/shared/strict', 2)).toEqual([200, 429]);
    // Same key, limit 5: the shared count is 1 (the denial counted nothing), so Redis allows it.
    expect(await statuses(port, '/shared/loose', 1)).toEqual([200]);
    expect(await admin.get('countLimit:shared')).toBe('2');
  });
});
