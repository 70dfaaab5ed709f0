import { Controller, Get, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CountLimit, DefaultLimit, LimitType, RateLimiterModule, SkipRateLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Two app-wide limits, as `@nestjs/throttler`'s short and long throttlers. */
const DEFAULTS: DefaultLimit[] = [
  { name: 'short', algorithm: 'countLimit', limit: 3, period: 60 },
  { name: 'long', algorithm: 'slidingWindowLimit', limit: 6, window: 60 },
];

@Controller('plain')
class PlainController {
  @Get('a')
  a() {
    return 'a';
  }

  @Get('b')
  b() {
    return 'b';
  }

  @Get('looser')
  @CountLimit({ name: 'short', limit: 5, period: 60 })
  looser() {
    return 'looser';
  }

  @Get('added')
  @CountLimit({ key: 'added', limit: 10, period: 60 })
  added() {
    return 'added';
  }

  @Get('health')
  @SkipRateLimit()
  health() {
    return 'ok';
  }

  @Get('long-only')
  @SkipRateLimit('short')
  longOnly() {
    return 'long only';
  }
}

@Controller('tight')
@CountLimit({ name: 'short', limit: 2, period: 60, limitType: LimitType.IP })
@SkipRateLimit('long')
class TightController {
  @Get('class')
  byClass() {
    return 'class';
  }

  @Get('method')
  @CountLimit({ name: 'short', limit: 4, period: 60 })
  byMethod() {
    return 'method';
  }

  @Get('long-back')
  @CountLimit({ name: 'long', limit: 1, period: 60 })
  longBack() {
    return 'long back';
  }
}

@Controller('skipped')
@SkipRateLimit()
class SkippedController {
  @Get()
  @CountLimit({ limit: 1, period: 60 })
  get() {
    return 'skipped';
  }
}

describe.each(PLATFORMS)('module defaults on %s', (platform) => {
  const env = useAppOnRedis([PlainController, TightController, SkippedController], platform, {
    defaults: DEFAULTS,
  });
  const statuses = async (path: string, n: number, localAddress = '127.0.0.1') => {
    const result = [];
    for (let i = 0; i < n; i++) result.push((await call(env.port, { path, localAddress })).status);
    return result;
  };

  it('limit every handler with no decorator, each handler and client with its own key', async () => {
    expect(await statuses('/plain/a', 3)).toEqual([200, 200, 200]);
    expect(await env.admin.get('countLimit:~PlainController.a:127.0.0.1')).toBe('3');
    expect(await env.admin.zcard('slidingWindow:~PlainController.a:127.0.0.1')).toBe(3);
    expect(await statuses('/plain/a', 1)).toEqual([429]);
    expect(await statuses('/plain/b', 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses('/plain/a', 2, '127.0.0.2')).toEqual([200, 200]);
  });

  it('a decorator named like a default replaces it; an unnamed one adds to the defaults', async () => {
    expect(await statuses('/plain/looser', 5)).toEqual([200, 200, 200, 200, 200]);
    // The default's per-IP key, which the decorator inherits as it sets no key of its own.
    expect(await env.admin.exists('countLimit:~PlainController.looser')).toBe(0);
    expect(await env.admin.get('countLimit:~PlainController.looser:127.0.0.1')).toBe('5');
    expect(await statuses('/plain/looser', 1)).toEqual([429]);
    // The default's 3 still applies next to the added limit of 10.
    expect(await statuses('/plain/added', 4)).toEqual([200, 200, 200, 429]);
  });

  it('@SkipRateLimit() skips everything; @SkipRateLimit(name) only that name', async () => {
    expect(await statuses('/plain/health', 8)).toEqual(Array(8).fill(200));
    expect(await statuses('/skipped', 3)).toEqual([200, 200, 200]);
    // 'short' (3) is skipped: 'long' (6) decides.
    expect(await statuses('/plain/long-only', 7)).toEqual([...Array(6).fill(200), 429]);
  });

  it('method-level beats class-level beats default; a class skip yields to a method limit', async () => {
    expect(await statuses('/tight/class', 3)).toEqual([200, 200, 429]);
    expect(await statuses('/tight/method', 5)).toEqual([200, 200, 200, 200, 429]);
    // The class skips 'long', but the method declares its own 'long'.
    expect(await statuses('/tight/long-back', 2)).toEqual([200, 429]);
  });
});

@Controller('pool')
class PoolController {
  @Get('slow')
  async slow() {
    await pause(300);
    return 'slow';
  }

  @Get('plan')
  plan() {
    return 'plan';
  }
}

describe('defaults of any algorithm, with options that are functions of the request', () => {
  const env = useAppOnRedis([PoolController], 'express', {
    defaults: [
      { name: 'pool', algorithm: 'concurrencyLimit', max: 1, limitType: LimitType.METHOD },
      {
        name: 'tier',
        algorithm: 'slidingWindowLimit',
        approximate: true,
        window: 60,
        limit: (ctx) => (ctx.request.headers['x-plan'] === 'pro' ? 4 : 2),
      },
    ],
  });

  it('a concurrency default holds its slot while the handler runs and gives it back after', async () => {
    const [first, second] = await Promise.all([
      call(env.port, { path: '/pool/slow', headers: { 'x-plan': 'pro' } }),
      pause(100).then(() => call(env.port, { path: '/pool/slow', headers: { 'x-plan': 'pro' } })),
    ]);
    expect([first.status, second.status]).toEqual([200, 429]);
    // Released by the module's interceptor: no decorator put one on the handler.
    expect(await env.admin.zcard('concurrency:~PoolController.slow')).toBe(0);
    expect(
      (await call(env.port, { path: '/pool/slow', headers: { 'x-plan': 'pro' } })).status,
    ).toBe(200);
  });

  it('a function option resolves per request', async () => {
    const as = async (plan: string, localAddress: string) => {
      const result = [];
      for (let i = 0; i < 5; i++) {
        result.push(
          (await call(env.port, { path: '/pool/plan', headers: { 'x-plan': plan }, localAddress }))
            .status,
        );
      }
      return result;
    };
    expect(await as('free', '127.0.0.2')).toEqual([200, 200, 429, 429, 429]);
    expect(await as('pro', '127.0.0.3')).toEqual([200, 200, 200, 200, 429]);
  });
});

describe('defaults are checked at start-up', () => {
  const start = async (defaults: unknown) => {
    @Module({ imports: [RateLimiterModule.forRoot({ defaults: defaults as DefaultLimit[] })] })
    class AppModule {}
    return Test.createTestingModule({ imports: [AppModule] }).compile();
  };

  it.each([
    [
      [{ name: 'short', algorithm: 'countLimit', limit: 0, period: 1 }],
      "RateLimiterModule: defaults[0]: option 'limit' must be",
    ],
    [
      [{ algorithm: 'countLimit' }, { algorithm: 'throttle', limit: 1 }],
      "RateLimiterModule: defaults[1]: option 'algorithm' must be one of 'rateLimit', 'countLimit', 'slidingWindowLimit', 'concurrencyLimit', 'leakyBucketLimit', 'quotaLimit', got 'throttle'",
    ],
    [
      [{ algorithm: 'countLimit', ttl: 60 }],
      "RateLimiterModule: defaults[0]: unknown option 'ttl'; the options are",
    ],
    [
      [
        { name: 'short', algorithm: 'countLimit' },
        { name: 'short', algorithm: 'rateLimit' },
      ],
      "RateLimiterModule: defaults[1]: the name 'short' is given to two defaults",
    ],
    [{ name: 'short' }, "RateLimiterModule: option 'defaults' must be an array of limits"],
  ])('refuses %j', async (defaults, message) => {
    await expect(start(defaults)).rejects.toThrow(message);
  });
});
