import { Controller, Get, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CountLimit, RateLimitEvent, RateLimiterModule } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call } from '../helpers/http';

@Controller('named')
class NamedController {
  @Get()
  @CountLimit({ limit: 5, period: 60 })
  @CountLimit({ limit: 50, period: 3600, key: 'hourly' })
  @CountLimit({ name: 'burst', limit: 1, period: 1, key: 'burst' })
  handle() {
    return 'ok';
  }
}

describe('every limit has a name of its own, shown in its events', () => {
  const events: RateLimitEvent[] = [];
  const env = useAppOnRedis([NamedController], 'express', {
    onDecision: (event) => events.push(event),
  });

  it('derives unique names from the prefix and keeps given ones', async () => {
    expect((await call(env.port, { path: '/named' })).status).toBe(200);
    expect(events.map((event) => event.outcome)).toEqual(['allowed', 'allowed', 'allowed']);
    expect(events.map((event) => event.name).sort()).toEqual([
      'burst',
      'countLimit',
      'countLimit#2',
    ]);
  });
});

@Controller('twice')
class TwiceNamedController {
  @Get()
  @CountLimit({ name: 'short', limit: 5, period: 1 })
  @CountLimit({ name: 'short', limit: 100, period: 60, key: 'other' })
  handle() {
    return 'ok';
  }
}

it('refuses one name given to two limits of a handler, at start-up', async () => {
  @Module({ imports: [RateLimiterModule.forRoot()], controllers: [TwiceNamedController] })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  await expect(app.init()).rejects.toThrow(
    "@CountLimit on TwiceNamedController.handle: the name 'short' is given to two limits of this handler",
  );
  await app.close();
});
