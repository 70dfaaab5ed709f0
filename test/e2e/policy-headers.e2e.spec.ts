import { createHash } from 'node:crypto';
import { Controller, Get, Module } from '@nestjs/common';
import {
  ConcurrencyLimit,
  CountLimit,
  LimitType,
  QUOTA_EXCEEDED_TYPE,
  RateLimiterModule,
} from '../../src';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** `pk` of a key: the first 12 bytes of its SHA-256, as a structured-field byte sequence. */
const pk = (key: string) =>
  `:${createHash('sha256').update(key).digest().subarray(0, 12).toString('base64')}:`;

@Controller('policies')
class PolicyController {
  // Decorators apply from the bottom up: 'burst' is the handler's first limit.
  @Get('two')
  @CountLimit({ name: 'daily', limitType: LimitType.IP, limit: 100, period: 86400 })
  @CountLimit({ name: 'burst', limit: 5, period: 1 })
  two() {
    return 'ok';
  }

  @Get('slots')
  @ConcurrencyLimit({ name: 'exports', max: 3 })
  slots() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('IETF headers name every policy, on %s', (platform) => {
  let redis: RedisServer;
  const apps: { close(): Promise<void> }[] = [];
  const start = async (options: { problemDetails?: boolean } = {}) => {
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url, headers: 'ietf', ...options })],
      controllers: [PolicyController],
    })
    class AppModule {}
    const started = await startApp(AppModule, platform);
    apps.push(started.app);
    return started.port;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  beforeEach(() => redis.client().flushall());
  afterAll(async () => {
    for (const app of apps) await app.close();
    await redis?.stop();
  });

  it('two named limits: both policies, both states; pk only for the key with no client in it', async () => {
    const port = await start();
    const reply = await call(port, { path: '/policies/two' });
    expect(reply.status).toBe(200);
    const burstKey = (await redis.client().keys('countLimit:*')).find(
      (key) => !key.includes('127'),
    );
    expect(burstKey).toBe('countLimit:~PolicyController.two');
    const burstPk = pk(burstKey!);
    expect(reply.headers['ratelimit-policy']).toBe(
      `"burst";q=5;w=1;pk=${burstPk}, "daily";q=100;w=86400`,
    );
    expect(reply.headers['ratelimit']).toBe(`"burst";r=4;t=1;pk=${burstPk}, "daily";r=99;t=86400`);
  });

  it('a concurrency limit counts concurrent requests', async () => {
    const port = await start();
    const reply = await call(port, { path: '/policies/slots' });
    expect(reply.headers['ratelimit-policy']).toMatch(
      /^"exports";q=3;qu="concurrent-requests";pk=:[A-Za-z0-9+/]{16}:$/,
    );
    expect(reply.headers['ratelimit']).toMatch(/^"exports";r=2;t=\d+;pk=:[A-Za-z0-9+/]{16}:$/);
  });

  it('problemDetails: a denial is application/problem+json naming the policy it violated', async () => {
    const port = await start({ problemDetails: true });
    for (let i = 0; i < 5; i++)
      expect((await call(port, { path: '/policies/two' })).status).toBe(200);
    const denied = await call(port, { path: '/policies/two' });
    expect(denied.status).toBe(429);
    expect(denied.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(denied.headers['retry-after']).toBe('1');
    expect(denied.body).toEqual({
      type: QUOTA_EXCEEDED_TYPE,
      title: 'Request cannot be satisfied as assigned quota has been exceeded',
      status: 429,
      'violated-policies': ['burst'],
      retryAfter: 1,
    });
    // The denied request took nothing from 'daily' (all or nothing): 95 of 100 left.
    expect(denied.headers['ratelimit']).toMatch(/^"burst";r=0;t=1;pk=[^,]+, "daily";r=95;t=86400$/);
  });

  it('without problemDetails a denial keeps the JSON body', async () => {
    const port = await start();
    for (let i = 0; i < 5; i++) await call(port, { path: '/policies/two' });
    const denied = await call(port, { path: '/policies/two' });
    expect(denied.headers['content-type']).toMatch(/^application\/json/);
    expect(denied.body).toEqual({ statusCode: 429, message: 'Too Many Requests', retryAfter: 1 });
  });
});
