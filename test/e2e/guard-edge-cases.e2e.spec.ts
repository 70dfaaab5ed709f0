import { request as httpRequest } from 'node:http';
import { Controller, Get, INestApplication, MessageEvent, Module, Sse } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import Redis from 'ioredis';
import { Observable, interval, map, take } from 'rxjs';
import {
  ConcurrencyLimit,
  CountLimit,
  Decision,
  LimiterAlgorithm,
  LimiterStore,
  RateLimitEvent,
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleOptions,
  StoreUnavailableError,
} from '../../src';
import { freePort } from '../helpers/free-port';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

@Controller('dup')
@CountLimit({ limit: 3, period: 60 })
class DuplicateLimitsController {
  @Get('class-and-method')
  @CountLimit({ limit: 5, period: 60 })
  classAndMethod() {
    return 'ok';
  }
}

@Controller('windows')
class TwoWindowsController {
  @Get()
  @CountLimit({ limit: 2, period: 1 })
  @CountLimit({ limit: 4, period: 60 })
  twoWindows() {
    return 'ok';
  }
}

class InheritedBase {
  @Get()
  @CountLimit({ limit: 1, period: 60 })
  handle() {
    return 'ok';
  }
}
@Controller('inherit-a')
class InheritA extends InheritedBase {}
@Controller('inherit-b')
class InheritB extends InheritedBase {}

@Controller('shared')
class SharedKeyController {
  @Get('strict')
  @CountLimit({ key: 'shared', limit: 1, period: 60 })
  strict() {
    return 'ok';
  }

  @Get('loose')
  @CountLimit({ key: 'shared', limit: 5, period: 60 })
  loose() {
    return 'ok';
  }
}

@Controller('slots')
class SlotsController {
  @Get('late')
  @ConcurrencyLimit({ key: 'late', max: 5 })
  late() {
    return 'ok';
  }

  @Sse('stream')
  @ConcurrencyLimit({ key: 'stream', max: 1 })
  stream(): Observable<MessageEvent> {
    return interval(100).pipe(
      take(3),
      map((i) => ({ data: { i } })),
    );
  }
}

function moduleWith(options: RateLimiterModuleOptions, controllers: any[]) {
  @Module({ imports: [RateLimiterModule.forRoot(options)], controllers })
  class TestModule {}
  return TestModule;
}

/** Blocks the Redis server for `ms`, as a slow command or a busy replica would. */
function blockRedis(admin: Redis, ms: number): Promise<unknown> {
  const script = `
    local t = redis.call('TIME'); local start = t[1] * 1000000 + t[2]
    repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1])
    return 1`;
  return admin.eval(script, 0, String(ms * 1000));
}

/** Opens an SSE stream; resolves `firstEvent` on its first data line and `ended` at its end. */
function openStream(port: number) {
  let onFirst!: () => void;
  const firstEvent = new Promise<void>((resolve) => (onFirst = resolve));
  const ended = new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: '/slots/stream', agent: false },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (chunk.includes('data:')) onFirst();
        });
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
  return { firstEvent, ended };
}

describe('guard edge cases on real Redis', () => {
  let redis: RedisServer;
  let admin: Redis;
  const apps: INestApplication[] = [];
  const start = async (options: RateLimiterModuleOptions, controllers: any[]) => {
    const started = await startApp(moduleWith(options, controllers), 'express');
    apps.push(started.app);
    return started.port;
  };
  const statuses = async (port: number, path: string, times: number) => {
    const result: number[] = [];
    for (let i = 0; i < times; i++) result.push((await call(port, { path })).status);
    return result;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
    await admin.flushall();
  });
  afterAll(() => redis.stop());

  it('a class-level and a method-level limit of one kind keep separate state', async () => {
    const port = await start({ redis: redis.url }, [DuplicateLimitsController]);
    // Sharing one counter, each request would count twice and the 3rd would be denied.
    expect(await statuses(port, '/dup/class-and-method', 4)).toEqual([200, 200, 200, 429]);
    expect(
      (await admin.keys('countLimit:*DuplicateLimitsController.classAndMethod')).sort(),
    ).toEqual([
      'countLimit:#2:~DuplicateLimitsController.classAndMethod',
      'countLimit:~DuplicateLimitsController.classAndMethod',
    ]);
  });

  it('two windows on one method: 2 a second and 4 a minute', async () => {
    const port = await start({ redis: redis.url }, [TwoWindowsController]);
    expect(await statuses(port, '/windows', 3)).toEqual([200, 200, 429]);
    await pause(1100);
    // The second window opened; the minute counts every attempt so far (a fixed window's rule).
    expect(await statuses(port, '/windows', 2)).toEqual([200, 429]);
    // Decorators apply bottom-up: the minute limit is the first, the second gets `#2:`.
    expect(await admin.get('countLimit:~TwoWindowsController.twoWindows')).toBe('5');
    expect(await admin.get('countLimit:#2:~TwoWindowsController.twoWindows')).toBe('2');
  });

  it('a handler inherited by two controllers is limited per controller', async () => {
    const port = await start({ redis: redis.url }, [InheritA, InheritB]);
    expect(await statuses(port, '/inherit-a', 2)).toEqual([200, 429]);
    expect(await statuses(port, '/inherit-b', 2)).toEqual([200, 429]);
    expect((await admin.keys('countLimit:~Inherit*')).sort()).toEqual([
      'countLimit:~InheritA.handle',
      'countLimit:~InheritB.handle',
    ]);
  });

  it("a denial remembered for one limit does not answer another limit's request on the same key", async () => {
    const port = await start({ redis: redis.url }, [SharedKeyController]);
    expect(await statuses(port, '/shared/strict', 2)).toEqual([200, 429]);
    // Same key, limit 5: the shared count is 3, so Redis allows it.
    expect(await statuses(port, '/shared/loose', 1)).toEqual([200]);
    expect(await admin.get('countLimit:shared')).toBe('3');
  });

  it('a slot granted after storeTimeout is given back, not held until its lease', async () => {
    const events: RateLimitEvent[] = [];
    const port = await start(
      { redis: redis.url, storeTimeout: 100, onDecision: (event) => events.push(event) },
      [SlotsController],
    );
    expect((await call(port, { path: '/slots/late' })).status).toBe(200); // connection warm
    const blocked = blockRedis(admin, 400);
    const reply = await call(port, { path: '/slots/late' });
    expect(reply.status).toBe(200); // 'allow' after storeTimeout
    expect(reply.elapsedMs).toBeLessThan(300);
    await blocked;
    await pause(100);
    expect(await admin.zcard('concurrency:late')).toBe(0);
    expect(events.filter((event) => event.outcome === 'store-error')).toHaveLength(1);
  });

  it('a server-sent event stream holds its slot until the stream ends', async () => {
    const port = await start({ redis: redis.url }, [SlotsController]);
    const first = openStream(port);
    await first.firstEvent;
    expect((await call(port, { path: '/slots/stream' })).status).toBe(429);
    expect(await admin.zcard('concurrency:stream')).toBe(1);
    expect(await first.ended).toBe(200);
    await pause(50);
    expect(await admin.zcard('concurrency:stream')).toBe(0);
    const second = openStream(port);
    expect(await second.ended).toBe(200);
  });
});

/** A store whose backend answers with an error it does not know how to classify. */
class BrokenStore extends LimiterStore {
  evaluate<P, R, S>(_a: LimiterAlgorithm<P, R, S>, _k: string, _p: P, _r: R): Promise<Decision> {
    return Promise.reject(new TypeError('backend exploded'));
  }
}

describe('a custom store that throws', () => {
  const apps: INestApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });

  it.each([
    ['allow', 200],
    ['deny', 503],
  ] as const)('under %s answers %d, never 500', async (onStoreError, status) => {
    const events: RateLimitEvent[] = [];
    const started = await startApp(
      moduleWith(
        { store: new BrokenStore(), onStoreError, onDecision: (event) => events.push(event) },
        [SharedKeyController],
      ),
      'express',
    );
    apps.push(started.app);
    expect((await call(started.port, { path: '/shared/strict' })).status).toBe(status);
    expect(events.map((event) => [event.outcome, event.limit, event.error?.message])).toEqual([
      [
        'store-error',
        '@CountLimit on SharedKeyController.strict',
        'the store failed: backend exploded',
      ],
    ]);
  });
});

describe("the module's factory", () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  async function factoryOf(options: RateLimiterModuleOptions) {
    const moduleRef = await Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(options)],
    }).compile();
    moduleRef.useLogger(false);
    await moduleRef.init();
    return { factory: moduleRef.get(RateLimiterFactory), close: () => moduleRef.close() };
  }

  it('prefixes keys per algorithm, so two algorithms given one key never share state', async () => {
    const { factory, close } = await factoryOf({ redis: redis.url, keyPrefix: 'app:' });
    expect(await factory.rateLimiter({ key: 'k', rate: 1, burst: 2 }).tryAcquire()).toBe(true);
    expect(await factory.countLimiter({ key: 'k', limit: 2, period: 60 }).tryAcquire()).toBe(true);
    expect(await factory.countLimiter({ key: 'k', limit: 2, period: 60 }).tryAcquire()).toBe(true);
    expect(await factory.rateLimiter({ key: 'k', rate: 1, burst: 2 }).tryAcquire()).toBe(true);
    const admin = redis.client();
    expect((await admin.keys('app:*')).sort()).toEqual(['app:countLimit:k', 'app:rateLimit:k']);
    expect(await admin.get('app:countLimit:k')).toBe('2');
    await close();
  });

  describe('with Redis unreachable, follows storeTimeout and onStoreError', () => {
    let deadUrl: string;
    beforeAll(async () => {
      deadUrl = `redis://127.0.0.1:${await freePort()}`;
    });

    it("'deny' throws StoreUnavailableError, within storeTimeout", async () => {
      const { factory, close } = await factoryOf({
        redis: deadUrl,
        onStoreError: 'deny',
        storeTimeout: 100,
      });
      const started = Date.now();
      const attempt = factory.countLimiter({ key: 'x', limit: 1, period: 60 }).tryAcquire();
      await expect(attempt).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(Date.now() - started).toBeLessThan(200);
      await close();
    });

    it("'allow' allows; 'fallback' limits in memory", async () => {
      const allow = await factoryOf({ redis: deadUrl, onStoreError: 'allow', storeTimeout: 100 });
      const open = allow.factory.countLimiter({ key: 'x', limit: 1, period: 60 });
      expect([await open.tryAcquire(), await open.tryAcquire()]).toEqual([true, true]);
      await allow.close();

      const fallback = await factoryOf({
        redis: deadUrl,
        onStoreError: 'fallback',
        storeTimeout: 100,
      });
      const limited = fallback.factory.countLimiter({ key: 'x', limit: 1, period: 60 });
      expect([await limited.tryAcquire(), await limited.tryAcquire()]).toEqual([true, false]);
      await fallback.close();
    });
  });
});

describe('module options are checked at start-up', () => {
  it.each([
    [
      { onStoreError: 'deny ' },
      `option 'onStoreError' must be one of 'allow', 'deny', 'fallback', got 'deny '`,
    ],
    [{ storeTimeout: 0 }, `option 'storeTimeout' must be a number of milliseconds > 0, got 0`],
    [
      { headers: 'draft' },
      `option 'headers' must be one of 'legacy', 'ietf', 'both', false, got 'draft'`,
    ],
    [{ onDecision: 'log' }, `option 'onDecision' must be a function, got 'log'`],
  ])('%p', async (options, message) => {
    const moduleRef = Test.createTestingModule({
      imports: [RateLimiterModule.forRoot(options as RateLimiterModuleOptions)],
    });
    await expect(moduleRef.compile()).rejects.toThrow(`RateLimiterModule: ${message}`);
  });
});
