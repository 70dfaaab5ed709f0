import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, RateLimiterModule, RateLimitEvent, StoreErrorPolicy } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { freePort } from '../helpers/free-port';
import { call, startApp } from '../helpers/http';
import { watchLateness } from '../helpers/lateness';
import { startRedisServer, RedisServer } from '../helpers/redis-server';

const STORE_TIMEOUT_MS = 200;

@Controller()
class LimitedController {
  @Get('limited')
  @CountLimit({ limit: 3, period: 60 })
  limited() {
    return 'ok';
  }
}

function appModule(redis: string, onStoreError: StoreErrorPolicy, events: RateLimitEvent[] = []) {
  @Module({
    imports: [
      RateLimiterModule.forRoot({
        redis,
        onStoreError,
        storeTimeout: STORE_TIMEOUT_MS,
        onDecision: (event) => events.push(event),
      }),
    ],
    controllers: [LimitedController],
  })
  class FailureModule {}
  return FailureModule;
}

async function statusesOf(
  port: number,
  count: number,
): Promise<{ statuses: number[]; slowestMs: number }> {
  const statuses: number[] = [];
  let slowestMs = 0;
  for (let i = 0; i < count; i++) {
    const reply = await call(port, { path: '/limited' });
    statuses.push(reply.status);
    slowestMs = Math.max(slowestMs, reply.elapsedMs);
  }
  return { statuses, slowestMs };
}

describe.each<[StoreErrorPolicy, number[]]>([
  ['allow', [200, 200, 200, 200, 200, 200]],
  ['deny', [503, 503, 503, 503, 503, 503]],
  ['fallback', [200, 200, 200, 429, 429, 429]],
])('Redis killed mid-run with onStoreError %s', (policy, duringOutage) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  const logger = new CaptureLogger();
  const events: RateLimitEvent[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    ({ app, port } = await startApp(appModule(redis.url, policy, events), 'express', logger));
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  it('answers every request within storeTimeout + 100 ms, by the policy, and resumes on a new Redis', async () => {
    expect((await statusesOf(port, 2)).statuses).toEqual([200, 200]);

    await redis.kill();
    const lateness = watchLateness();
    const outage = await statusesOf(port, 6);
    lateness.stop();
    expect(outage.statuses).toEqual(duringOutage);
    expect(outage.slowestMs).toBeLessThan(STORE_TIMEOUT_MS + 100 + 2 * lateness.maxMs());
    expect(logger.count('warn', /store unavailable/)).toBe(1);
    expect(events.filter((event) => event.outcome === 'store-error')).toHaveLength(6);
    expect(events.find((event) => event.outcome === 'store-error')?.limit).toBe(
      '@CountLimit on LimitedController.limited',
    );

    await redis.start(); // a new, empty process on the same port
    const deadline = Date.now() + 8_000;
    const admin = redis.client();
    while ((await admin.exists('countLimit:~LimitedController.limited')) === 0) {
      if (Date.now() > deadline) throw new Error('limiting did not resume on the new Redis');
      await call(port, { path: '/limited' });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The request that created the key counted once; two more are allowed, then 429.
    expect((await statusesOf(port, 3)).statuses).toEqual([200, 200, 429]);
    expect(logger.count('log', /store is back/)).toBe(1);
    expect(logger.count('warn', /store unavailable/)).toBe(1);
  });
});

describe('start-up while Redis is down', () => {
  it('starts, and decides by the policy within storeTimeout', async () => {
    const deadPort = await freePort();
    const { app, port } = await startApp(
      appModule(`redis://127.0.0.1:${deadPort}`, 'deny'),
      'fastify',
    );
    const lateness = watchLateness();
    try {
      const reply = await call(port, { path: '/limited' });
      lateness.stop();
      expect(reply.status).toBe(503);
      expect(reply.body).toMatchObject({
        statusCode: 503,
        message: 'Rate limiting is unavailable',
      });
      expect(reply.elapsedMs).toBeLessThan(STORE_TIMEOUT_MS + 100 + 2 * lateness.maxMs());
    } finally {
      await app.close();
    }
  });
});
