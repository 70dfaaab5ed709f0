import { Controller, Get, Module } from '@nestjs/common';
import { CountLimit, RateLimiterModule } from '../../src';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

@Controller()
class HotController {
  @Get('hot')
  @CountLimit({ key: 'hot', limit: 1000, period: 600, lease: 100 })
  hot() {
    return 'ok';
  }

  // Two limits: all or nothing, decided in Redis per request; the lease serves neither.
  @Get('both')
  @CountLimit({ key: 'both', limit: 1000, period: 600, lease: 100 })
  @CountLimit({ name: 'per-second', key: 'both-second', limit: 100, period: 1 })
  both() {
    return 'ok';
  }
}

/** A decorator's `lease` through the guard: headers tell Redis's count, close gives back. */
describe('a leased limit in an app', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('serves 10 requests from one lease, reports the key as Redis counts it, and gives back 90 on close', async () => {
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url })],
      controllers: [HotController],
    })
    class AppModule {}
    const { app, port } = await startApp(AppModule, 'express');
    const admin = redis.client();
    const replies = [];
    for (let i = 0; i < 10; i++) replies.push(await call(port, { path: '/hot' }));
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(200));
    // The lease counts as taken: every response says 900 left, as Redis does.
    expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(Array(10).fill('900'));
    expect(await admin.get('countLimit:hot')).toBe('100');
    for (let i = 0; i < 3; i++) expect((await call(port, { path: '/both' })).status).toBe(200);
    expect(await admin.get('countLimit:both')).toBe('3');
    await app.close();
    expect(await admin.get('countLimit:hot')).toBe('10');
  });
});
