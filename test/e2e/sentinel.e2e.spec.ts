import { Controller, Get, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit, RateLimiterModule } from '../../src';
import { call, startApp } from '../helpers/http';
import { startRedisSentinel, RedisSentinelSetup } from '../helpers/redis-sentinel';

@Controller()
class SentinelController {
  @Get('limited')
  @CountLimit({ limit: 10, period: 60 })
  limited() {
    return 'ok';
  }
}

describe('a Sentinel client', () => {
  let sentinel: RedisSentinelSetup;

  beforeAll(async () => {
    sentinel = await startRedisSentinel();
  });
  afterAll(() => sentinel.stop());

  it('finds the master through the sentinel and shares one exact limit between two apps', async () => {
    const options = {
      sentinels: [{ host: '127.0.0.1', port: sentinel.sentinelPort }],
      name: sentinel.masterName,
    };
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: options })],
      controllers: [SentinelController],
    })
    class SentinelModule {}
    const a = await startApp(SentinelModule, 'express');
    const b = await startApp(SentinelModule, 'fastify');
    try {
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) => call(i % 2 ? a.port : b.port, { path: '/limited' })),
      );
      expect(replies.filter((reply) => reply.status === 200)).toHaveLength(10);
      const master = new Redis(sentinel.masterPort, '127.0.0.1');
      // The counter lives on the master the sentinel named. Later denials are answered by
      // each app's local denial cache, so fewer than 30 requests reach Redis.
      const counted = Number(await master.get('countLimit:SentinelController.limited'));
      expect(counted).toBeGreaterThan(10);
      expect(counted).toBeLessThanOrEqual(30);
      master.disconnect();
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });
});
