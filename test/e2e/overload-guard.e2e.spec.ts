import { Controller, Get, Module, Query } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  AdaptiveConcurrencyLimit,
  ConcurrencyLimit,
  CountLimit,
  RateLimiterModule,
  RateLimitEvent,
  SkipRateLimit,
} from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { allCommandsRun, afterStartUpCheck } from '../helpers/command-stats';
import { call, HttpReply, PLATFORMS } from '../helpers/http';

/** A fixed limit of 10 (nothing to learn): the classes' ceilings are exact, 10, 8 and 6. */
const FIXED = { initialLimit: 10, minLimit: 10, maxLimit: 10 };

/** Handlers that wait until the test lets them go, so requests stay in flight. */
const held: (() => void)[] = [];
const hold = () => new Promise<void>((resolve) => held.push(resolve));
const letGo = () => held.splice(0).forEach((go) => go());

@Controller('held')
@AdaptiveConcurrencyLimit({ ...FIXED, priority: '#{headers["x-priority"]}' })
class HeldController {
  @Get()
  async run() {
    await hold();
    return 'ok';
  }

  @Get('other')
  async other() {
    return 'ok';
  }
}

@Controller('composed')
class ComposedController {
  @Get()
  @CountLimit({ limit: 1, period: 60, key: 'composed:#{query.client}' })
  @AdaptiveConcurrencyLimit({ initialLimit: 1, minLimit: 1, maxLimit: 1 })
  async run(@Query('hold') holdIt?: string) {
    if (holdIt) await hold();
    return 'ok';
  }

  @Get('slots')
  @ConcurrencyLimit({ max: 1, key: 'slots' })
  @AdaptiveConcurrencyLimit({ initialLimit: 1, minLimit: 1, maxLimit: 1 })
  async slots() {
    await hold();
    return 'ok';
  }

  @Get('skipped')
  @SkipRateLimit()
  skipped() {
    return 'ok';
  }
}

const events: RateLimitEvent[] = [];

describe.each(PLATFORMS)('the overload guard on %s', (platform) => {
  const env = useAppOnRedis([HeldController, ComposedController], platform, {
    problemDetails: true,
    onDecision: (event) => events.push(event),
  });
  const answered: HttpReply[] = [];
  const pending: Promise<HttpReply>[] = [];
  /** Sends `count` requests at once; resolves once each is held in the handler or answered. */
  const send = async (count: number, priority?: string, path = '/held') => {
    const expected = held.length + answered.length + count;
    for (let i = 0; i < count; i++) {
      const headers: Record<string, string> = priority ? { 'x-priority': priority } : {};
      const reply = call(env.port, { path, headers });
      pending.push(reply);
      void reply.then((done) => answered.push(done));
    }
    while (held.length + answered.length < expected) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };
  const refusedNow = () => answered.splice(0);

  afterEach(async () => {
    letGo();
    await Promise.all(pending.splice(0));
    answered.splice(0);
    events.splice(0);
  });

  it('refuses sheddable requests first, then normal ones, and keeps the reserve for critical ones', async () => {
    await send(8, 'sheddable');
    expect([held.length, refusedNow().map((r) => r.status)]).toEqual([6, [503, 503]]);
    await send(4); // no header: normal
    expect([held.length, refusedNow().length]).toEqual([8, 2]);
    await send(3, 'sheddable');
    await send(2, 'anything else is normal');
    expect([held.length, refusedNow().length]).toEqual([8, 5]);
    await send(3, 'critical');
    const refused = refusedNow();
    expect([held.length, refused.length]).toEqual([10, 1]);
    expect(refused[0].headers['retry-after']).toBe('1');
    expect(refused[0].headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused[0].body).toEqual({
      type: 'about:blank',
      title: 'Service Unavailable',
      status: 503,
      detail: 'Service Unavailable: the server is overloaded',
      retryAfter: 1,
    });
    const byClass = events
      .filter((event) => event.outcome === 'overload')
      .map((event) => event.priority);
    expect(byClass).toEqual([
      ...Array(2).fill('sheddable'),
      ...Array(2).fill('normal'),
      ...Array(3).fill('sheddable'),
      ...Array(2).fill('normal'),
      'critical',
    ]);
    expect(events[0].limit).toBe('@AdaptiveConcurrencyLimit on HeldController');
    // The class's handlers share one gate; once the work ends, every slot is free again.
    expect((await call(env.port, { path: '/held/other' })).status).toBe(503);
    letGo();
    await Promise.all(pending.splice(0));
    answered.splice(0);
    await send(10, 'sheddable');
    expect([held.length, refusedNow().length]).toEqual([6, 4]);
  });

  it('a request a quota refuses takes no overload slot', async () => {
    expect((await call(env.port, { path: '/composed?client=a' })).status).toBe(200);
    expect((await call(env.port, { path: '/composed?client=a' })).status).toBe(429);
    expect((await call(env.port, { path: '/composed?client=a' })).status).toBe(429);
    // Had a 429 kept its slot, this would be refused with 503 (a limit of 1).
    expect((await call(env.port, { path: '/composed?client=b' })).status).toBe(200);
  });

  it('a request the overload guard refuses costs Redis nothing and takes no quota', async () => {
    await afterStartUpCheck(env.admin);
    await send(1, undefined, '/composed?client=c&hold=1');
    expect(held).toHaveLength(1);
    await env.admin.config('RESETSTAT');
    const refused = await call(env.port, { path: '/composed?client=d' });
    expect(refused.status).toBe(503);
    expect(await allCommandsRun(env.admin)).toBe(0);
    letGo();
    await Promise.all(pending.splice(0));
    answered.splice(0);
    // d's quota is whole: its first request passes.
    expect((await call(env.port, { path: '/composed?client=d' })).status).toBe(200);
  });

  it('a concurrency slot and the overload slot of one request both go back when its work ends', async () => {
    await send(1, undefined, '/composed/slots');
    expect(held).toHaveLength(1);
    expect((await call(env.port, { path: '/composed/slots' })).status).toBe(503);
    letGo();
    await Promise.all(pending.splice(0));
    answered.splice(0);
    await send(1, undefined, '/composed/slots');
    // Neither a 503 (the overload slot kept) nor a 429 (the concurrency slot kept).
    expect([held.length, answered]).toEqual([1, []]);
    expect(await env.admin.zcard('concurrency:slots')).toBe(1);
  });

  it('@SkipRateLimit() skips it', async () => {
    await send(1, undefined, '/composed?client=e&hold=1');
    expect((await call(env.port, { path: '/composed/skipped' })).status).toBe(200);
  });
});

describe('overload options at start-up', () => {
  const startWith = async (options: object, controllers: any[] = []) => {
    @Module({ imports: [RateLimiterModule.forRoot(options)], controllers })
    class AppModule {}
    let app: { init(): Promise<unknown>; close(): Promise<void> } | undefined;
    try {
      const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
      await app.init();
      return 'started';
    } catch (error) {
      return (error as Error).message;
    } finally {
      await app?.close();
    }
  };

  it('a wrong decorator option fails start-up naming the handler and the option', async () => {
    @Controller()
    class BadController {
      @Get()
      @AdaptiveConcurrencyLimit({ reserve: 1 })
      get() {
        return 'ok';
      }
    }
    await expect(startWith({}, [BadController])).resolves.toBe(
      "@AdaptiveConcurrencyLimit on BadController.get: option 'reserve' must be a number from 0 to less than 1, got 1",
    );
  });

  it.each([
    [{ maxLimit: 0 }, "option 'overload.maxLimit' must be an integer >= 1, got 0"],
    [
      { minLimit: 5, initialLimit: 2 },
      "option 'overload.initialLimit' must be an integer >= 5, got 2",
    ],
    [
      { initialLimit: 30, maxLimit: 10 },
      "option 'overload.initialLimit' must be an integer from 1 to 10, got 30",
    ],
    [
      { algorithm: 'vegas' },
      "option 'overload.algorithm' must be 'gradient2' or 'aimd', got 'vegas'",
    ],
    [{ priority: 'x-#{' }, "option 'overload.priority' must be a key template"],
    [{ priority: 3 }, "option 'overload.priority' must be a key template or a function, got 3"],
    [
      { reserve: -0.1 },
      "option 'overload.reserve' must be a number from 0 to less than 1, got -0.1",
    ],
    [{ limit: 3 }, "unknown option 'overload.limit'"],
  ])('overload %j fails start-up: %s', async (overload, message) => {
    await expect(startWith({ overload })).resolves.toContain(`RateLimiterModule: ${message}`);
  });
});
