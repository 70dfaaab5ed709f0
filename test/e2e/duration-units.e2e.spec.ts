import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { initApp } from '../helpers/init-app';
import {
  ConcurrencyLimit,
  CountLimit,
  RateLimit,
  RateLimiterFactory,
  RateLimiterModule,
  SlidingWindowLimit,
} from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { CaptureLogger } from '../helpers/capture-logger';
import { eventually } from '../helpers/eventually';
import { call, PLATFORMS } from '../helpers/http';

@Controller('units')
class UnitsController {
  @Get('minute')
  @CountLimit({ limit: 2, period: '1m' })
  minute() {
    return 'ok';
  }

  @Get('window')
  @SlidingWindowLimit({ limit: 1, window: '300ms' })
  window() {
    return 'ok';
  }

  // One SMS a minute, saved up to 3: capacity says the bucket's size in permits.
  @Get('capacity')
  @RateLimit({ rate: 1 / 60, capacity: 3 })
  capacity() {
    return 'ok';
  }

  @Get('block')
  @CountLimit({ limit: 1, period: '500ms', block: '2m', key: 'blocked' })
  blocked() {
    return 'ok';
  }

  @Get('wait')
  @RateLimit({ rate: 10, capacity: 1, timeout: '1s' })
  wait() {
    return 'ok';
  }

  @Get('resolved')
  @CountLimit({ limit: 1, period: (ctx) => ctx.request.query.period, key: 'resolved' })
  resolved() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('time options as duration strings on Redis (%s)', (platform) => {
  const env = useAppOnRedis([UnitsController], platform);
  const get = (path: string) => call(env.port, { path });
  const statuses = async (path: string, count: number) => {
    const result: number[] = [];
    for (let i = 0; i < count; i++) result.push((await get(path)).status);
    return result;
  };

  it("period '1m' is a minute: the key lives 60 s", async () => {
    expect(await statuses('/units/minute', 3)).toEqual([200, 200, 429]);
    const pttl = await env.admin.pttl('countLimit:~UnitsController.minute');
    expect(pttl).toBeGreaterThan(55_000);
    expect(pttl).toBeLessThanOrEqual(60_000);
  });

  it("window '300ms' frees its one request after 300 ms", async () => {
    expect(await statuses('/units/window', 2)).toEqual([200, 429]);
    expect(await eventually(async () => (await get('/units/window')).status, 200)).toBe(200);
  });

  it('capacity 3 at one a minute allows 3 at once, then one a minute', async () => {
    const replies = await Promise.all(Array.from({ length: 10 }, () => get('/units/capacity')));
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(3);
    const denied = replies.filter((reply) => reply.status === 429);
    expect(denied).toHaveLength(7);
    expect(denied.map((reply) => reply.headers['retry-after'])).toEqual(Array(7).fill('60'));
    expect(replies.find((r) => r.status === 200)!.headers['x-ratelimit-limit']).toBe('3');
  });

  it("block '2m' keeps the key denied for two minutes", async () => {
    expect(await statuses('/units/block', 2)).toEqual([200, 429]);
    const reply = await get('/units/block');
    expect(reply.status).toBe(429);
    expect(Number(reply.headers['retry-after'])).toBeGreaterThan(115);
    expect(Number(reply.headers['retry-after'])).toBeLessThanOrEqual(120);
  });

  it("timeout '1s' waits for the next permit instead of refusing", async () => {
    const replies = await Promise.all(Array.from({ length: 5 }, () => get('/units/wait')));
    // One at once, then one every 100 ms: four more fit within the second.
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
  });

  it("lease '90s' holds a slot 90 s at most", async () => {
    const factory = env.app.get(RateLimiterFactory);
    const slot = await factory
      .concurrencyLimiter({ key: 'jobs', max: 1, lease: '90s' })
      .tryAcquire();
    expect(slot).not.toBeNull();
    const pttl = await env.admin.pttl('concurrency:jobs');
    expect(pttl).toBeGreaterThan(85_000);
    expect(pttl).toBeLessThanOrEqual(90_000);
    await slot!.release();
  });

  it('a function may return a duration; one outside the grammar answers 500', async () => {
    expect((await get('/units/resolved?period=1m')).status).toBe(200);
    expect((await get('/units/resolved?period=1m')).status).toBe(429);
    expect(await env.admin.pttl('countLimit:resolved')).toBeGreaterThan(55_000);
    expect((await get('/units/resolved?period=1%20minute')).status).toBe(500);
  });

  it('factory limiters take durations too', async () => {
    const factory = env.app.get(RateLimiterFactory);
    const limiter = factory.countLimiter({ key: 'report:1', limit: 1, period: '1h' });
    expect(await limiter.tryAcquire()).toBe(true);
    expect(await limiter.tryAcquire()).toBe(false);
    expect(await env.admin.pttl('countLimit:report:1')).toBeGreaterThan(3_590_000);
    const bucket = factory.rateLimiter({ key: 'report:2', rate: 1 / 3600, capacity: 2 });
    expect(await bucket.tryAcquire(2)).toBe(true);
    expect(await bucket.tryAcquire({ permits: 1, timeout: '1s' })).toBe(false);
    await bucket.block('10m');
    expect((await bucket.peek()).blockedMs).toBeGreaterThan(595_000);
  });
});

async function boot(controller: Function, logger = new CaptureLogger()): Promise<INestApplication> {
  @Module({ imports: [RateLimiterModule.forRoot()], controllers: [controller as never] })
  class AppModule {}
  return initApp(AppModule, logger);
}

describe('time options at start-up', () => {
  it('a duration outside the grammar fails start-up naming class, method, option and value', async () => {
    @Controller()
    class TypoController {
      @Get()
      @CountLimit({ limit: 5, period: '1 min' as never })
      handle() {
        return 'ok';
      }
    }
    await expect(boot(TypoController)).rejects.toThrow(
      "@CountLimit on TypoController.handle: option 'period' must be seconds (a number) or a duration string: a number then ms, s, m, h or d, such as '500ms', '30s', '1m', '1h', '1d', got '1 min'",
    );
  });

  it('burst and capacity together fail start-up', async () => {
    @Controller()
    class BothController {
      @Get()
      @RateLimit({ rate: 1, burst: 10, capacity: 10 })
      handle() {
        return 'ok';
      }
    }
    await expect(boot(BothController)).rejects.toThrow(
      "@RateLimit on BothController.handle: options 'burst' and 'capacity' exclude each other; pass only one",
    );
  });

  it('permits above capacity fail start-up naming capacity', async () => {
    @Controller()
    class TooManyController {
      @Get()
      @RateLimit({ rate: 1, capacity: 2, permits: 3 })
      handle() {
        return 'ok';
      }
    }
    await expect(boot(TooManyController)).rejects.toThrow(
      "@RateLimit on TooManyController.handle: option 'permits' must be at most capacity (2) when timeout is 0, got 3",
    );
  });

  const secondsWarnings = (logger: CaptureLogger) =>
    logger.lines
      .filter((line) => line.level === 'warn' && line.message.includes('is in seconds'))
      .map((line) => line.message);
  const UNITS = "Time options take seconds or a duration string ('500ms', '30s', '1m', '1h', '1d')";

  it('a period that looks like milliseconds (from a ttl of 1000 up) warns once, naming both readings', async () => {
    @CountLimit({ limit: 10, period: 60_000 })
    @Controller()
    class ThrottlerStyleController {
      @Get('a')
      a() {
        return 'ok';
      }

      @Get('b')
      @SlidingWindowLimit({ limit: 5, window: 3_600_000 })
      @CountLimit({ name: 'short', limit: 3, period: 1000 })
      @CountLimit({ limit: 5, period: 900, key: 'quarter' })
      b() {
        return 'ok';
      }
    }
    const logger = new CaptureLogger();
    const app = await boot(ThrottlerStyleController, logger);
    expect(secondsWarnings(logger)).toEqual([
      `@CountLimit on ThrottlerStyleController.a: period 60000 is in seconds (16.7 hours); if you meant 60000 milliseconds, write period: '1m', and if you meant seconds, period: '1000m' says so. ${UNITS}`,
      `@CountLimit on ThrottlerStyleController.b: period 1000 is in seconds (16.7 minutes); if you meant 1000 milliseconds, write period: '1s', and if you meant seconds, period: '1000s' says so. ${UNITS}`,
      `@SlidingWindowLimit on ThrottlerStyleController.b: window 3600000 is in seconds (41.7 days); if you meant 3600000 milliseconds, write window: '1h', and if you meant seconds, window: '1000h' says so. ${UNITS}`,
    ]);
    await app.close();
  });

  @Controller()
  class EveryTimeController {
    // Throttler's "1,000 a minute": the limit is no excuse.
    @Get('a')
    @CountLimit({ limit: 1000, period: 60_000 })
    a() {
      return 'ok';
    }

    @Get('b')
    @CountLimit({ limit: 10, period: 1500, block: [60, 3600] })
    @RateLimit({ rate: 1, burst: 2000, timeout: 1000, expire: 86_400 })
    b() {
      return 'ok';
    }

    @Get('c')
    @ConcurrencyLimit({ max: 2, lease: 5000 })
    @SlidingWindowLimit({ limit: 5000, window: '1h', block: 1000 })
    c() {
      return 'ok';
    }
  }

  it('every time option given as a bare number from 1,000 up warns, whatever the limit', async () => {
    const logger = new CaptureLogger();
    const app = await boot(EveryTimeController, logger);
    const said = secondsWarnings(logger).map((message) => message.split(' is in seconds')[0]);
    expect(said).toEqual([
      '@CountLimit on EveryTimeController.a: period 60000',
      '@RateLimit on EveryTimeController.b: burst 2000',
      '@RateLimit on EveryTimeController.b: timeout 1000',
      '@RateLimit on EveryTimeController.b: expire 86400',
      '@CountLimit on EveryTimeController.b: period 1500',
      '@CountLimit on EveryTimeController.b: block[1] 3600',
      '@SlidingWindowLimit on EveryTimeController.c: block 1000',
      '@ConcurrencyLimit on EveryTimeController.c: lease 5000',
    ]);
    expect(secondsWarnings(logger)[4]).toBe(
      `@CountLimit on EveryTimeController.b: period 1500 is in seconds (25 minutes); if you meant 1500 milliseconds, write period: '1500ms', and if you meant seconds, period: '25m' says so. ${UNITS}`,
    );
    await app.close();
  });

  it('a default with a bare time warns too, naming the handler', async () => {
    @Controller()
    class PlainController {
      @Get()
      handle() {
        return 'ok';
      }
    }
    @Module({
      imports: [
        RateLimiterModule.forRoot({
          defaults: [{ name: 'minute', algorithm: 'countLimit', limit: 1000, period: 60_000 }],
        }),
      ],
      controllers: [PlainController],
    })
    class DefaultsModule {}
    const logger = new CaptureLogger();
    const app = await initApp(DefaultsModule, logger);
    expect(secondsWarnings(logger).map((message) => message.split(' is in')[0])).toEqual([
      'defaults[0] on PlainController.handle: period 60000',
    ]);
    await app.close();
  });

  it('strictDurations refuses a bare time from 1,000 up at start-up, naming class, method and option', async () => {
    const strict = (controller: Function) => {
      @Module({
        imports: [RateLimiterModule.forRoot({ strictDurations: true })],
        controllers: [controller as never],
      })
      class StrictModule {}
      return initApp(StrictModule, new CaptureLogger());
    };
    await expect(strict(EveryTimeController)).rejects.toThrow(
      "@CountLimit on EveryTimeController.a: option 'period' is a bare number of seconds from 1000 up (60000: 16.7 hours), which strictDurations refuses: write '1m' for 60000 milliseconds or '1000m' for 60000 seconds",
    );
    @Controller()
    class StringsController {
      @Get()
      @CountLimit({ limit: 1000, period: '1m', block: ['1h', 60] })
      @ConcurrencyLimit({ max: 2, lease: 999 })
      handle() {
        return 'ok';
      }
    }
    const app = await strict(StringsController);
    await app.close();
  });

  it('strictDurations must be a boolean', async () => {
    @Module({ imports: [RateLimiterModule.forRoot({ strictDurations: 'yes' as never })] })
    class WrongModule {}
    await expect(initApp(WrongModule, new CaptureLogger())).rejects.toThrow(
      "RateLimiterModule: option 'strictDurations' must be a boolean, got 'yes'",
    );
  });
});
