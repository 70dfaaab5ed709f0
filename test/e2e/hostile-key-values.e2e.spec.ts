import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Body, Controller, Get, INestApplication, Module, Post } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { CountLimit, LimitType, RateLimiterModule, RateLimiterModuleOptions } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { call, Platform, PLATFORMS, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

@Controller()
class KeysController {
  @Post('sms')
  @CountLimit({ key: 'sms:#{phone}', limit: 1, period: 3600 })
  sms(@Body() _body: unknown) {
    return 'sent';
  }

  @Get('me')
  @CountLimit({ limitType: LimitType.USER, limit: 1, period: 3600 })
  me() {
    return 'ok';
  }

  @Get('by-ip')
  @CountLimit({ limitType: LimitType.IP, limit: 2, period: 3600 })
  byIp() {
    return 'ok';
  }
}

/** What a MongoDB ObjectId looks like to us: a class with its own toString. */
class ObjectIdLike {
  constructor(private readonly hex: string) {}
  toString() {
    return this.hex;
  }
}

const users: Record<string, unknown> = {
  alice: { name: 'alice' },
  bob: { name: 'bob' },
  carol: { name: 'carol' },
  oid1: new ObjectIdLike('65a1f0c2e4b0a1b2c3d4e5f6'),
  oid2: new ObjectIdLike('65a1f0c2e4b0a1b2c3d4e5f7'),
  list: ['alice'],
};

function moduleWith(options: RateLimiterModuleOptions) {
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers: [KeysController] })
  class KeysModule {}
  return KeysModule;
}

describe.each(PLATFORMS)('keys a client or the app cannot collapse, on %s', (platform) => {
  let redis: RedisServer;
  let admin: Redis;
  let app: INestApplication;
  let port: number;
  const logger = new CaptureLogger();

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    // As an app's JavaScript (or an `any`) can: the declared type does not stop it.
    const resolveUser = (request: any) => users[request.headers['x-user']] as string;
    ({ app, port } = await startApp(
      moduleWith({ redis: redis.url, resolveUser }),
      platform,
      logger,
    ));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('a bare name in both query and body with different values answers 400 naming it', async () => {
    const statuses = [];
    for (let i = 0; i < 5; i++) {
      const reply = await call(port, {
        method: 'POST',
        path: `/sms?phone=x${i}`,
        json: { phone: '+15550001111' },
      });
      statuses.push(reply.status);
      if (i === 0)
        expect(reply.body.message).toMatch(
          /^Key expression 'phone' has different values in query and body/,
        );
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400]);
    // Where the two agree, or only the body names it, the limit holds: 1 an hour.
    const agreed = {
      method: 'POST',
      path: '/sms?phone=%2B15550001111',
      json: { phone: '+15550001111' },
    };
    expect((await call(port, agreed)).status).toBe(201);
    expect(
      (await call(port, { method: 'POST', path: '/sms', json: { phone: '+15550001111' } })).status,
    ).toBe(429);
  });

  it('template values with lone UTF-16 surrogates answer 400, never one shared key', async () => {
    const statuses = [];
    for (const phone of ['\ud800', '\udc00', 'a\udbff']) {
      statuses.push((await call(port, { method: 'POST', path: '/sms', json: { phone } })).status);
    }
    expect(statuses).toEqual([400, 400, 400]);
    expect(await admin.keys('countLimit:sms:*\ufffd*')).toEqual([]);
  });

  it('a user id that is a plain object or an array answers 500 with one log line', async () => {
    const before = logger.lines.length;
    const statuses = [];
    for (const user of ['alice', 'bob', 'carol', 'list']) {
      statuses.push((await call(port, { path: '/me', headers: { 'x-user': user } })).status);
    }
    expect(statuses).toEqual([500, 500, 500, 500]);
    const lines = logger.lines.slice(before);
    expect(lines).toHaveLength(4);
    expect(lines[0]).toEqual({
      level: 'error',
      message:
        '@CountLimit on KeysController.me: resolveUser returned an object without its own toString: a USER id must be a string, a number, or an object with its own toString (such as a MongoDB ObjectId)',
    });
    expect(lines[3].message).toContain('resolveUser returned an array');
    expect(await admin.keys('countLimit:~KeysController.me:*')).toEqual([]);
  });

  it('a user id with its own toString (an ObjectId) keys each user apart', async () => {
    const statuses = [];
    for (const user of ['oid1', 'oid2', 'oid1']) {
      statuses.push((await call(port, { path: '/me', headers: { 'x-user': user } })).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect((await admin.keys('countLimit:~KeysController.me:*')).sort()).toEqual([
      'countLimit:~KeysController.me:65a1f0c2e4b0a1b2c3d4e5f6',
      'countLimit:~KeysController.me:65a1f0c2e4b0a1b2c3d4e5f7',
    ]);
  });
});

/** A GET over a unix socket. */
function callSocket(socketPath: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, path, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.each(PLATFORMS)(
  'an IP limit on a server listening on a unix socket, on %s',
  (platform: Platform) => {
    let redis: RedisServer;
    let app: INestApplication;
    let dir: string;
    const logger = new CaptureLogger();

    beforeAll(async () => {
      redis = await startRedisServer();
      dir = mkdtempSync(join(tmpdir(), 'limiter-socket-'));
      const moduleRef = await Test.createTestingModule({
        imports: [moduleWith({ redis: redis.url })],
      }).compile();
      app =
        platform === 'fastify'
          ? moduleRef.createNestApplication(new FastifyAdapter(), { logger })
          : moduleRef.createNestApplication({ logger });
      const socketPath = join(dir, 'app.sock');
      // Fastify takes a unix socket as `{ path }`; Express (Node's listen) as the path itself.
      await app.listen(platform === 'fastify' ? ({ path: socketPath } as any) : socketPath);
    });
    afterAll(async () => {
      await app?.close();
      await redis?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('keys every client on one empty IP, and says so once', async () => {
      const socket = join(dir, 'app.sock');
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push(await callSocket(socket, '/by-ip'));
      expect(statuses).toEqual([200, 200, 429, 429]);
      expect(await redis.client().keys('countLimit:*')).toEqual([
        'countLimit:~KeysController.byIp:',
      ]);
      expect(logger.count('warn', /client IP is empty/)).toBe(1);
      expect(logger.lines.find((line) => /client IP is empty/.test(line.message))?.message).toBe(
        '@CountLimit on KeysController.byIp: the client IP is empty (a server listening on a unix socket, or a transport without addresses), so every such request shares one key. Pass resolveIp to key them apart',
      );
    });
  },
);
