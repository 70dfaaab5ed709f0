import { Controller, Get, Module } from '@nestjs/common';
import { CountLimit, LimitContext, RateLimiterModule } from '../../src';
import { useAppOnStore } from '../helpers/app-on-store';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Each tenant's plan, as a database would answer it; the tests change it mid-window. */
const plans = new Map<string, number>();

const tenantOf = (ctx: LimitContext) => (ctx.request as { query: { tenant: string } }).query.tenant;
const planOf = (ctx: LimitContext) => plans.get(tenantOf(ctx)) ?? 3;

@Controller()
class PlanController {
  @Get('plan')
  @CountLimit({ limit: planOf, period: 600, key: 'tenant:#{query.tenant}' })
  plan() {
    return 'ok';
  }

  @Get('leased')
  @CountLimit({ limit: planOf, period: 600, key: 'leased:#{query.tenant}', lease: 10 })
  leased() {
    return 'ok';
  }
}

const statuses = async (port: number, path: string, count: number) => {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await call(port, { path })).status);
  return result;
};

/**
 * A limit from the customer's plan is one limit whose values travel with each request: a
 * tenant's key is the same key whatever its plan says today, on every store.
 */
describe.each(['memory', 'redis'] as const)('a limit from the plan, on %s', (storeName) => {
  const env = useAppOnStore(storeName, [PlanController]);

  it('keeps what a tenant used when its plan changes within the window', async () => {
    plans.set('acme', 3);
    expect(await statuses(env.port, '/plan?tenant=acme', 2)).toEqual([200, 200]);
    // An upgrade from 3 to 5: the 2 used still count, 3 are left.
    plans.set('acme', 5);
    expect(await statuses(env.port, '/plan?tenant=acme', 4)).toEqual([200, 200, 200, 429]);
    // A downgrade to 4 with 5 used: denied until the window ends.
    plans.set('acme', 4);
    expect(await statuses(env.port, '/plan?tenant=acme', 1)).toEqual([429]);
  });

  it('allows exactly the plan of a tenant that sends 100 requests at once', async () => {
    plans.set('burst', 37);
    const path = '/plan?tenant=burst';
    const replies = await Promise.all(Array.from({ length: 100 }, () => call(env.port, { path })));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(37);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(63);
  });

  it('gives each of 300 tenants the limit of its plan', async () => {
    for (let t = 1; t <= 300; t++) plans.set(`t${t}`, 1 + (t % 7));
    const allowed = new Map<string, number>();
    for (let t = 1; t <= 300; t++) {
      const replies = await statuses(env.port, `/plan?tenant=t${t}`, 2 + (t % 7));
      allowed.set(`t${t}`, replies.filter((status) => status === 200).length);
    }
    const wrong = [...allowed].filter(([tenant, n]) => n !== plans.get(tenant));
    expect(wrong).toEqual([]);
  });
});

describe('a leased limit from the plan', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  it('serves a tenant from one lease while its plan stays, and from a new one once it changes', async () => {
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url })],
      controllers: [PlanController],
    })
    class AppModule {}
    const { app, port } = await startApp(AppModule, 'express');
    const admin = redis.client();
    plans.set('big', 1000);
    expect(await statuses(port, '/leased?tenant=big', 10)).toEqual(Array(10).fill(200));
    // One lease of 10 served all ten: Redis counted 10 once.
    expect(await admin.get('countLimit:leased:big')).toBe('10');
    plans.set('big', 2000);
    expect(await statuses(port, '/leased?tenant=big', 1)).toEqual([200]);
    // The old lease ended (nothing unused) and a new one of 10 was taken under the new plan.
    expect(await admin.get('countLimit:leased:big')).toBe('20');
    await app.close();
    // Closing gives back the 9 the new lease did not hand out.
    expect(await admin.get('countLimit:leased:big')).toBe('11');
    admin.disconnect();
  });
});
