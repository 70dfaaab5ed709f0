import { request as httpRequest } from 'node:http';
import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  INestApplication,
  Module,
  UseGuards,
} from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { CountLimit, LimitType, RateLimitGuard, RateLimiterModule } from '../../src';
import { eventually } from '../helpers/eventually';
import { call, Platform, PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Lets the request on only once its client has hung up: the IP is read after it left. */
class AfterHangUpGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    const request = context.switchToHttp().getRequest();
    const socket = (request.raw ?? request).socket;
    if (socket.destroyed) return true;
    return new Promise((resolve) => socket.once('close', () => resolve(true)));
  }
}

@Controller()
class ClientIpController {
  runs = 0;

  @Get('ip')
  @UseGuards(RateLimitGuard)
  @CountLimit({ limitType: LimitType.IP, limit: 1, period: 60 })
  ip() {
    return 'ok';
  }

  @Get('leave')
  @UseGuards(AfterHangUpGuard, RateLimitGuard)
  @CountLimit({ limitType: LimitType.IP, limit: 1, period: 60 })
  leave() {
    this.runs++;
    return 'ok';
  }
}

/** A GET from `localAddress`, destroyed `afterMs` later. */
function leaveEarly(port: number, localAddress: string, afterMs: number): void {
  const request = httpRequest({
    host: '127.0.0.1',
    port,
    path: '/leave',
    localAddress,
    agent: false,
  });
  request.on('error', () => undefined);
  request.end();
  setTimeout(() => request.destroy(), afterMs);
}

/** An app behind one trusted proxy: the client IP is the last X-Forwarded-For entry. */
async function startBehindProxy(redis: RedisServer, platform: Platform) {
  @Module({
    imports: [RateLimiterModule.forRoot({ redis: redis.url, global: false })],
    controllers: [ClientIpController],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  let app: INestApplication;
  if (platform === 'fastify') {
    app = moduleRef.createNestApplication(new FastifyAdapter({ trustProxy: 1 }), { logger: false });
  } else {
    app = moduleRef.createNestApplication<NestExpressApplication>({ logger: false });
    (app as NestExpressApplication).set('trust proxy', 1);
  }
  await app.listen(0, '0.0.0.0');
  return { app, port: app.getHttpServer().address().port as number };
}

describe.each(PLATFORMS)('client IPs on %s', (platform) => {
  let redis: RedisServer;
  let admin: Redis;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    ({ app, port } = await startBehindProxy(redis, platform));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });
  beforeEach(() => admin.flushall());

  const statuses = async (...forwarded: string[]) => {
    const replies: number[] = [];
    for (const address of forwarded) {
      const reply = await call(port, { path: '/ip', headers: { 'x-forwarded-for': address } });
      replies.push(reply.status);
    }
    return replies;
  };

  it('one client, however the proxy spells its address, has one key', async () => {
    expect(await statuses('9.9.9.9:50001', '9.9.9.9')).toEqual([200, 429]);
    expect(await statuses('[2001:db8::1]', '2001:db8::1')).toEqual([200, 429]);
    expect(await statuses('1.2.3.04', '1.2.3.4')).toEqual([200, 429]);
    // IPv4-mapped IPv6: two IPv4 clients, not one ::/56 network.
    expect(await statuses('::ffff:506:708', '::ffff:a0b:c0d', '5.6.7.8')).toEqual([200, 200, 429]);
    expect((await admin.keys('countLimit:*')).sort()).toEqual([
      'countLimit:~ClientIpController.ip:1.2.3.4',
      'countLimit:~ClientIpController.ip:10.11.12.13',
      'countLimit:~ClientIpController.ip:2001:db8::/56',
      'countLimit:~ClientIpController.ip:5.6.7.8',
      'countLimit:~ClientIpController.ip:9.9.9.9',
    ]);
  });

  it('clients that hang up before their IP is read keep their own keys', async () => {
    const controller = app.get(ClientIpController);
    const runsBefore = controller.runs;
    leaveEarly(port, '127.0.0.2', 30);
    leaveEarly(port, '127.0.0.3', 30);
    expect(await eventually(async () => controller.runs - runsBefore, 2, 5000)).toBe(2);
    expect((await admin.keys('countLimit:*')).sort()).toEqual([
      'countLimit:~ClientIpController.leave:127.0.0.2',
      'countLimit:~ClientIpController.leave:127.0.0.3',
    ]);
  });
});
