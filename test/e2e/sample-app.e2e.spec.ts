import { INestApplication } from '@nestjs/common';
import { AppModule } from '../../sample-app/src/app.module';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

describe.each(PLATFORMS)('sample app on %s with Redis', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  const get = (path: string, extra: object = {}) => call(port, { path, ...extra });

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startApp(AppModule.register({ redis: redis.url }), platform));
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  it('counts per key: key a 200, 200, 429; key b still 200; headers count down', async () => {
    const first = await get('/limiter/count?key=a');
    expect(first.status).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('2');
    expect(first.headers['x-ratelimit-remaining']).toBe('1');
    expect(first.headers['x-ratelimit-reset']).toBe('10');
    const second = await get('/limiter/count?key=a');
    expect([second.status, second.headers['x-ratelimit-remaining']]).toEqual([200, '0']);
    const third = await get('/limiter/count?key=a');
    expect(third.status).toBe(429);
    expect(third.body).toEqual({ statusCode: 429, message: 'Too Many Requests', retryAfter: 10 });
    expect(third.headers['retry-after']).toBe('10');
    expect((await get('/limiter/count?key=b')).status).toBe(200);
  });

  it('rate route: 200 then 429 with Retry-After 5', async () => {
    expect((await get('/limiter/rate')).status).toBe(200);
    const denied = await get('/limiter/rate');
    expect(denied.status).toBe(429);
    expect(denied.headers['retry-after']).toBe('5');
    expect(denied.body.retryAfter).toBe(5);
  });

  it('programmatic rate2: 200 then 429', async () => {
    expect((await get('/limiter/rate2')).status).toBe(200);
    expect((await get('/limiter/rate2')).status).toBe(429);
  });

  it('one SMS a minute per phone; another phone allowed; a missing phone is 400', async () => {
    const send = (json: object) => call(port, { method: 'POST', path: '/sms/code', json });
    expect((await send({ phone: '+15550001' })).status).toBe(200);
    const again = await send({ phone: '+15550001' });
    expect(again.status).toBe(429);
    expect(Number(again.headers['retry-after'])).toBe(60);
    expect((await send({ phone: '+15550002' })).status).toBe(200);
    const missing = await send({});
    expect(missing.status).toBe(400);
    expect(missing.body.message).toBe('Missing a value this request is rate-limited by');
    const hostile = await send({ phone: { $gt: '' } });
    expect(hostile.status).toBe(400);
  });

  it('class-level limit applies to each handler; @SkipRateLimit exempts', async () => {
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await get('/reports/daily')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await get('/reports/weekly')).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const health = await get('/reports/health');
      expect(health.status).toBe(200);
      expect(health.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('IP keys: 127.0.0.1 and 127.0.0.2 have separate limits', async () => {
    const from = (localAddress: string) => get('/limiter/ip', { localAddress });
    const one = [];
    for (let i = 0; i < 4; i++) one.push((await from('127.0.0.1')).status);
    expect(one).toEqual([200, 200, 200, 429]);
    expect((await from('127.0.0.2')).status).toBe(200);
    expect(await redis.client().exists('countLimit:~LimiterController.ip:127.0.0.2')).toBe(1);
  });

  it('USER keys: users are limited separately; anonymous requests fall back to the IP', async () => {
    const as = (user: string) => get('/limiter/user', { headers: { 'x-user-id': user } });
    expect([
      (await as('alice')).status,
      (await as('alice')).status,
      (await as('alice')).status,
    ]).toEqual([200, 200, 429]);
    expect((await as('bob')).status).toBe(200);
    expect((await get('/limiter/user')).status).toBe(200);
    const keys = await redis.client().keys('countLimit:~LimiterController.user:*');
    expect(keys.sort()).toEqual([
      'countLimit:~LimiterController.user:alice',
      'countLimit:~LimiterController.user:bob',
      'countLimit:~LimiterController.user:ip:127.0.0.1',
    ]);
  });

  it('waits instead of refusing: 5 simultaneous requests succeed in successive 100 ms slots', async () => {
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: 5 }, () => get('/limiter/wait')));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    const finished = replies.map((reply) => reply.elapsedMs).sort((a, b) => a - b);
    expect(finished[4] - finished[0]).toBeGreaterThanOrEqual(370);
    expect(finished[4] - finished[0]).toBeLessThan(600);
    expect(Date.now() - started).toBeLessThan(900);
  });
});
