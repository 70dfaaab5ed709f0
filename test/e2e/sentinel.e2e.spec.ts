import { Controller, Get, Module } from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit, RateLimiterFactory, RateLimiterModule, RedisStore } from '../../src';
import { eventually } from '../helpers/eventually';
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
      // The counter lives on the master the sentinel named, and holds the 10 allowed: the
      // 20 denials counted nothing.
      expect(await master.get('countLimit:~SentinelController.limited')).toBe('10');
      master.disconnect();
    } finally {
      await a.app.close();
      await b.app.close();
    }
  });
});

describe('a Sentinel failover', () => {
  let sentinel: RedisSentinelSetup;

  beforeAll(async () => {
    sentinel = await startRedisSentinel({ replica: true });
  });
  afterAll(() => sentinel.stop());

  /** Whether the store's client has run the engine script on the server at `port`. */
  const storeConnectionOn = async (port: number) => {
    const admin = new Redis(port, '127.0.0.1');
    try {
      const list = String(await admin.client('LIST'));
      return list.split('\n').some((line) => /cmd=(evalsha|eval|fcall) /.test(line));
    } finally {
      admin.disconnect();
    }
  };

  it("moves the store's client to the promoted master, and the limit with it", async () => {
    const client = new Redis({
      sentinels: [{ host: '127.0.0.1', port: sentinel.sentinelPort }],
      name: sentinel.masterName,
    });
    client.on('error', () => undefined);
    const store = new RedisStore({ client });
    const counter = new RateLimiterFactory(store).countLimiter({
      key: 'failover',
      limit: 1e6,
      period: 60,
    });
    const decideOn = async (port: number) => {
      await counter.tryAcquire().catch(() => false); // the switch itself may fail a few
      return storeConnectionOn(port);
    };
    try {
      expect(await eventually(() => decideOn(sentinel.masterPort), true)).toBe(true);

      const admin = new Redis(sentinel.sentinelPort, '127.0.0.1');
      try {
        expect(await admin.call('SENTINEL', 'FAILOVER', sentinel.masterName)).toBe('OK');
      } finally {
        admin.disconnect();
      }
      expect(await eventually(() => decideOn(sentinel.replicaPort!), true, 20_000)).toBe(true);

      // The count goes on on the promoted master, from what it had replicated.
      const promoted = new Redis(sentinel.replicaPort!, '127.0.0.1');
      const before = Number(await promoted.get('countLimit:failover'));
      expect(await counter.tryAcquire()).toBe(true);
      expect(Number(await promoted.get('countLimit:failover'))).toBe(before + 1);
      promoted.disconnect();
    } finally {
      await store.close();
      client.disconnect();
    }
  });
});
