import { Controller, Get, Module } from '@nestjs/common';
import { ConcurrencyLimit, CountLimit, RateLimiterModule } from '../../src';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * The reproduction: an app deployed with `period: 10000` (meant as 10 s), then
 * restarted with the corrected `period: 10` on the same Redis. Its clients must get a 10 s
 * Retry-After at once, not the old window's 9,999 s until the old key expires (2.8 h).
 */
function appWith(redis: RedisServer, period: number, lease: number) {
  @Controller()
  class SmsController {
    @Get('sms')
    @CountLimit({ limit: 2, period, key: 'sms' })
    send() {
      return 'ok';
    }

    @Get('export')
    @ConcurrencyLimit({ max: 1, lease, key: 'export' })
    async export() {
      return 'ok';
    }
  }
  @Module({
    imports: [RateLimiterModule.forRoot({ redis: redis.url })],
    controllers: [SmsController],
  })
  class AppModule {}
  return startApp(AppModule, 'express');
}

describe('a period corrected by a restart on the same Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('answers the corrected 10 s at once, not the old 9,999 s', async () => {
    const before = await appWith(redis, 10_000, 3600);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(before.port, { path: '/sms' })).status);
    expect(statuses).toEqual([200, 200, 429]);
    // A slot left by a process that died mid-request, under the old lease.
    const admin = redis.client();
    const inAnHour = String((Number((await admin.time())[0]) + 3600) * 1_000_000);
    await admin.zadd('concurrency:export', inAnHour, 'lost-request');
    await admin.pexpire('concurrency:export', 3_600_000);
    await before.app.close();

    const after = await appWith(redis, 10, 10);
    try {
      const denied = await call(after.port, { path: '/sms' });
      expect(denied.status).toBe(429);
      expect(denied.headers['retry-after']).toBe('10');
      expect(denied.body).toMatchObject({ statusCode: 429, retryAfter: 10 });
      expect(await admin.pttl('countLimit:sms')).toBeLessThanOrEqual(10_000);
      expect((await call(after.port, { path: '/export' })).status).toBe(429);
      expect(await admin.pttl('concurrency:export')).toBeLessThanOrEqual(10_000);
    } finally {
      await after.app.close();
    }
  });
});
