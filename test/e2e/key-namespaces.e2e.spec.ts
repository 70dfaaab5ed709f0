import { Controller, Get, INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  CountLimit,
  LimitType,
  RateLimit,
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleOptions,
} from 'nestjs-limiter';
import { startBehindProxy } from '../helpers/behind-proxy';
import { call, PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** The victim's limit: one send a minute per client IP. */
@Controller('v')
class V {
  @Get('send')
  @RateLimit({ limitType: LimitType.IP, rate: 1 / 60, burst: 60 })
  send() {
    return 'sent';
  }
}

/** A route whose key is whatever the client puts in a header. */
@Controller('api')
class ApiController {
  @Get()
  @RateLimit({ key: "#{headers['x-api-key']}", rate: 1 / 60, burst: 60 })
  call() {
    return 'ok';
  }
}

@Controller('v6')
class V6Controller {
  @Get('ip')
  @CountLimit({ limitType: LimitType.IP, limit: 2, period: 60 })
  ip() {
    return 'ok';
  }

  @Get('user')
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  user() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('key namespaces on %s', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  const from = (path: string, forwardedFor: string, headers: Record<string, string> = {}) =>
    call(port, { path, headers: { 'x-forwarded-for': forwardedFor, ...headers } });

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startBehindProxy(platform, { redis: redis.url }, [
      V,
      ApiController,
      V6Controller,
    ]));
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  it("a client-chosen template key cannot spend another IP's limit (the issue's attack)", async () => {
    for (const value of ['V.send:127.0.0.9', '~V.send:127.0.0.9', '%7EV.send:127.0.0.9']) {
      const attack = await from('/api', '127.0.0.66', { 'x-api-key': value });
      expect(attack.status).toBe(200);
    }
    expect((await from('/v/send', '127.0.0.9')).status).toBe(200);
    expect((await from('/v/send', '127.0.0.9')).status).toBe(429);
    expect((await redis.client().keys('rateLimit:*')).sort()).toEqual([
      'rateLimit:%257EV.send:127.0.0.9',
      'rateLimit:%7EV.send:127.0.0.9',
      'rateLimit:V.send:127.0.0.9',
      'rateLimit:~V.send:127.0.0.9',
    ]);
  });

  it('the factory reaches a template key with the same key text, braces included', async () => {
    const factory = app.get(RateLimiterFactory);
    const limiter = factory.rateLimiter({ key: 'tenant:{7}', rate: 1 / 60, burst: 60 });
    expect(await limiter.tryAcquire()).toBe(true);
    const reply = await from('/api', '127.0.0.67', { 'x-api-key': 'tenant:{7}' });
    expect(reply.status).toBe(429);
    expect(await redis.client().exists('rateLimit:tenant:%7B7%7D')).toBe(1);
  });

  it('IPv6 clients of one /56 share an IP limit; another /56 has its own', async () => {
    const statuses = [];
    for (const ip of ['2001:db8:1:2ff::1', '2001:db8:1:2aa:1:2:3:4', '2001:db8:1:200::9']) {
      statuses.push((await from('/v6/ip', ip)).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect((await from('/v6/ip', '2001:db8:1:300::1')).status).toBe(200);
    expect((await redis.client().keys('countLimit:~V6Controller.ip:*')).sort()).toEqual([
      'countLimit:~V6Controller.ip:2001:db8:1:200::/56',
      'countLimit:~V6Controller.ip:2001:db8:1:300::/56',
    ]);
  });

  it("USER limits' anonymous fallback counts the /56 too", async () => {
    const statuses = [];
    for (const ip of ['2001:db8:5:1::1', '2001:db8:5:2::2', '2001:db8:5:3::3']) {
      statuses.push((await from('/v6/user', ip)).status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(await redis.client().keys('countLimit:~V6Controller.user:*')).toEqual([
      'countLimit:~V6Controller.user:ip:2001:db8:5::/56',
    ]);
  });
});

describe.each(PLATFORMS)('ipv6Subnet: false on %s', (platform) => {
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    ({ app, port } = await startBehindProxy(platform, { ipv6Subnet: false }, [
      V,
      ApiController,
      V6Controller,
    ]));
  });
  afterAll(() => app.close());

  it('keys each full IPv6 address', async () => {
    const statuses = [];
    for (const ip of ['2001:db8::1', '2001:db8::1', '2001:db8::1', '2001:db8::2']) {
      statuses.push(
        (await call(port, { path: '/v6/ip', headers: { 'x-forwarded-for': ip } })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 429, 200]);
  });
});

describe('ipv6Subnet is checked at start-up', () => {
  it.each([0, 129, 56.5, '56', true])('%p', async (ipv6Subnet) => {
    const moduleRef = Test.createTestingModule({
      imports: [RateLimiterModule.forRoot({ ipv6Subnet } as unknown as RateLimiterModuleOptions)],
    });
    await expect(moduleRef.compile()).rejects.toThrow(
      `RateLimiterModule: option 'ipv6Subnet' must be an integer from 1 to 128, or false`,
    );
  });
});
