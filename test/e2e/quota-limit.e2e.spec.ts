import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import {
  LimiterStore,
  QuotaLimit,
  RateLimitEvent,
  RateLimiterFactory,
  RateLimiterModule,
} from '../../src';
import { ManualClock, createTestingStore } from '../../src/testing';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

// Billing day 31, in the tenant's zone: New York's cycle of Feb 10 2026 is Jan 31 - Feb 28.
const FEB_10_NOON = Date.UTC(2026, 1, 10, 12);
const FEB_28_NEW_YORK = Date.UTC(2026, 1, 28, 5);
const FEB_28_KATHMANDU = Date.UTC(2026, 1, 27, 18, 15);

@Controller('api')
class ApiController {
  @Get('call')
  @QuotaLimit({
    key: "#{headers['x-tenant']}",
    limit: 3,
    cycle: 'month',
    anchor: 31,
    timeZone: "#{headers['x-zone']}",
    softLimit: 2,
    idempotencyKey: "#{headers['idempotency-key']}",
  })
  call() {
    return { ok: true };
  }

  @Get('daily')
  @QuotaLimit({ key: "#{headers['x-tenant']}", limit: 1, cycle: 'day' })
  daily() {
    return { ok: true };
  }
}

function useQuotaApp(
  store: () => LimiterStore | { redis: string },
  after: () => Promise<void> | void = () => undefined,
) {
  const env = { events: [] as RateLimitEvent[] } as {
    app: INestApplication;
    port: number;
    events: RateLimitEvent[];
  };
  beforeAll(async () => {
    const given = store();
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          ...('redis' in given ? { redis: given.redis } : { store: given }),
          headers: 'both',
          onDecision: (event) => env.events.push(event),
        }),
      ],
      controllers: [ApiController],
    })
    class AppModule {}
    Object.assign(env, await startApp(AppModule, 'express'));
  });
  afterAll(async () => {
    await env.app?.close();
    await after();
  });
  return env;
}

const tenant = (id: string, zone = 'America/New_York', extra: Record<string, string> = {}) => ({
  'x-tenant': id,
  'x-zone': zone,
  ...extra,
});

describe('@QuotaLimit on the testing kit: the manual clock moves cycles', () => {
  const clock = new ManualClock(FEB_10_NOON);
  const env = useQuotaApp(() => createTestingStore({ clock }));
  const get = (headers: Record<string, string>) => call(env.port, { path: '/api/call', headers });

  it('finds each tenant’s cycle in its own zone', async () => {
    for (let i = 0; i < 3; i++) await get(tenant('everest', 'Asia/Kathmandu'));
    const denied = await get(tenant('everest', 'Asia/Kathmandu'));
    expect(denied.headers['retry-after']).toBe(String((FEB_28_KATHMANDU - FEB_10_NOON) / 1000));
  });

  it('charges a retried idempotency key once and answers it as the first', async () => {
    const first = await get(tenant('globex', 'UTC', { 'idempotency-key': 'order-7' }));
    const retried = await get(tenant('globex', 'UTC', { 'idempotency-key': 'order-7' }));
    expect([first.status, retried.status]).toEqual([200, 200]);
    expect([
      first.headers['x-ratelimit-remaining'],
      retried.headers['x-ratelimit-remaining'],
    ]).toEqual(['2', '2']);
    const next = await get(tenant('globex', 'UTC'));
    expect(next.headers['x-ratelimit-remaining']).toBe('1');
  });

  it('denies with 429 until the next cycle starts, and tells the soft limit once per cycle', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await get(tenant('acme'))).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const denied = await get(tenant('acme'));
    const seconds = String((FEB_28_NEW_YORK - FEB_10_NOON) / 1000);
    expect(denied.headers['retry-after']).toBe(seconds);
    expect(denied.headers['x-ratelimit-reset']).toBe(seconds);
    expect(denied.headers['ratelimit']).toContain(`;t=${seconds}`);
    clock.advance(FEB_28_NEW_YORK - FEB_10_NOON - 1);
    expect((await get(tenant('acme'))).status).toBe(429);
    clock.advance(1);
    expect((await get(tenant('acme'))).status).toBe(200);
    expect((await get(tenant('acme'))).status).toBe(200);
    const soft = env.events.filter(
      (event) => event.outcome === 'quota-soft-limit' && event.key === 'quota:acme',
    );
    expect(soft.map((event) => event.decision?.quota?.used)).toEqual([2, 2]);
  });

  it('answers 500 for a tenant zone the platform does not know, never a wrong cycle', async () => {
    expect((await get(tenant('initech', 'Mars/Olympus'))).status).toBe(500);
  });
});

describe('@QuotaLimit on Redis: cycles on Redis’s clock', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  }, 60_000);
  const env = useQuotaApp(
    () => ({ redis: server.url }),
    () => server?.stop(),
  );

  it('denies a daily quota until the next UTC midnight', async () => {
    const headers = { 'x-tenant': 'daily' };
    expect((await call(env.port, { path: '/api/daily', headers })).status).toBe(200);
    const before = Date.now();
    const denied = await call(env.port, { path: '/api/daily', headers });
    const after = Date.now();
    expect(denied.status).toBe(429);
    const midnight = new Date(before).setUTCHours(24, 0, 0, 0);
    const retryAfter = Number(denied.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(Math.floor((midnight - after) / 1000));
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((midnight - before) / 1000) + 1);
  });

  it('shares state with factory.quota on the same key: an idempotent retry charged once', async () => {
    const headers = tenant('initech', 'UTC', { 'idempotency-key': 'order-9' });
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => call(env.port, { path: '/api/call', headers })),
    );
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    const quota = env.app
      .get(RateLimiterFactory)
      .quota({ key: 'initech', limit: 3, cycle: 'month', anchor: 31 });
    expect(await quota.usage()).toMatchObject({ used: 1, remaining: 2 });
  });
});
