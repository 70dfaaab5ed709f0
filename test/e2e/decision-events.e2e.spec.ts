import { Controller, Get, Module } from '@nestjs/common';
import {
  CountLimit,
  Decision,
  DecisionCall,
  LimiterStore,
  RateLimitEvent,
  RateLimiterFactory,
  RateLimiterModule,
} from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { call, startApp } from '../helpers/http';

@Controller('module-policy')
class ModulePolicyController {
  @Get('shadowed')
  @CountLimit({ limit: 1, period: 60 })
  shadowed() {
    return 'ok';
  }

  @Get('enforced')
  @CountLimit({ limit: 1, period: 60, shadow: false })
  enforced() {
    return 'ok';
  }
}

describe("the module's skip and shadow, and events of the factory", () => {
  const events: RateLimitEvent[] = [];
  const env = useAppOnRedis([ModulePolicyController], 'fastify', {
    shadow: true,
    skip: (ctx) => ctx.request.headers['x-load-test'] === '1',
    onDecision: (event) => events.push(event),
  });
  const get = (path: string, headers: Record<string, string> = {}) =>
    call(env.port, { path, headers });
  beforeEach(() => {
    events.length = 0;
  });

  it("the module's skip applies to every limit and costs Redis nothing", async () => {
    await get('/warm-up');
    await afterStartUpCheck(env.admin);
    const before = await scriptCalls(env.admin);
    const replies = [
      await get('/module-policy/enforced', { 'x-load-test': '1' }),
      await get('/module-policy/enforced', { 'x-load-test': '1' }),
      await get('/module-policy/shadowed', { 'x-load-test': '1' }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    expect(await scriptCalls(env.admin)).toBe(before);
    expect(events.map((event) => [event.outcome, event.limit])).toEqual([
      ['skipped', '@CountLimit on ModulePolicyController.enforced'],
      ['skipped', '@CountLimit on ModulePolicyController.enforced'],
      ['skipped', '@CountLimit on ModulePolicyController.shadowed'],
    ]);
  });

  it("the module's shadow applies where a decorator does not say otherwise", async () => {
    const shadowed = [];
    for (let i = 0; i < 3; i++) shadowed.push((await get('/module-policy/shadowed')).status);
    expect(shadowed).toEqual([200, 200, 200]);
    const enforced = [];
    for (let i = 0; i < 2; i++) enforced.push((await get('/module-policy/enforced')).status);
    expect(enforced).toEqual([200, 429]);
    expect(events.map((event) => event.outcome)).toEqual([
      'allowed',
      'shadow-denied',
      'shadow-denied',
      'allowed',
      'denied',
    ]);
  });

  it('programmatic limiters report allowed and denied; a release is no decision', async () => {
    const factory = env.app.get(RateLimiterFactory);
    const counter = factory.countLimiter({ key: 'report:7', limit: 1, period: 60 });
    expect([await counter.tryAcquire(), await counter.tryAcquire()]).toEqual([true, false]);
    const slot = await factory.concurrencyLimiter({ key: 'export', max: 1 }).tryAcquire();
    await slot!.release();
    expect(events.map((event) => [event.outcome, event.limit, event.key])).toEqual([
      ['allowed', 'RateLimiterFactory', 'countLimit:report:7'],
      ['denied', 'RateLimiterFactory', 'countLimit:report:7'],
      ['allowed', 'RateLimiterFactory', 'concurrency:export'],
    ]);
    expect(events[1].decision).toMatchObject({ allowed: false, limit: 1, remaining: 0 });
  });

  it('reports store-error from the guard and from the factory when Redis is gone', async () => {
    await env.redis.kill();
    expect((await get('/module-policy/enforced')).status).toBe(200); // 'allow'
    const factory = env.app.get(RateLimiterFactory);
    expect(await factory.countLimiter({ key: 'report:8', limit: 1, period: 60 }).tryAcquire()).toBe(
      true,
    );
    expect(events.map((event) => [event.outcome, event.limit, event.key])).toEqual([
      [
        'store-error',
        '@CountLimit on ModulePolicyController.enforced',
        'countLimit:~ModulePolicyController.enforced',
      ],
      ['store-error', 'RateLimiterFactory', 'countLimit:report:8'],
    ]);
    expect(events[0].error?.message).toEqual(expect.any(String));
  });
});

/** A store whose backend fails every decision. */
class FailingStore extends LimiterStore {
  evaluate<P, R, S>(_call: DecisionCall<P, R, S>): Promise<Decision> {
    return Promise.reject(new Error('backend down'));
  }
}

describe("a shadow limit under onStoreError: 'deny'", () => {
  const events: RateLimitEvent[] = [];
  let close: () => Promise<void>;
  let port: number;
  beforeAll(async () => {
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          store: new FailingStore(),
          onStoreError: 'deny',
          shadow: true,
          onDecision: (event) => events.push(event),
        }),
      ],
      controllers: [ModulePolicyController],
    })
    class DenyModule {}
    const started = await startApp(DenyModule, 'express');
    port = started.port;
    close = () => started.app.close();
  });
  afterAll(() => close?.());

  it('never answers 503 for a shadow limit; an enforced one does', async () => {
    expect((await call(port, { path: '/module-policy/shadowed' })).status).toBe(200);
    expect((await call(port, { path: '/module-policy/enforced' })).status).toBe(503);
    expect(events.map((event) => [event.outcome, event.limit])).toEqual([
      ['store-error', '@CountLimit on ModulePolicyController.shadowed'],
      ['store-error', '@CountLimit on ModulePolicyController.enforced'],
    ]);
  });
});
