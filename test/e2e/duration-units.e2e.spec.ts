import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { initApp } from '../helpers/init-app';
import {
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
      @CountLimit({ limit: 5, period: 3600, key: 'hourly' })
      b() {
        return 'ok';
      }
    }
    const logger = new CaptureLogger();
    const app = await boot(ThrottlerStyleController, logger);
    expect(
      logger.lines
        .filter((line) => line.level === 'warn' && line.message.includes('is in seconds'))
        .map((line) => line.message),
    ).toEqual([
      "@CountLimit on ThrottlerStyleController.a: period 60000 is in seconds (16.7 hours); if you meant 60000 milliseconds, write period: '1m'. Time options take seconds or a duration string ('500ms', '30s', '1m', '1h', '1d')",
      "@CountLimit on ThrottlerStyleController.b: period 1000 is in seconds (16.7 minutes); if you meant 1000 milliseconds, write period: '1s'. Time options take seconds or a duration string ('500ms', '30s', '1m', '1h', '1d')",
      "@SlidingWindowLimit on ThrottlerStyleController.b: window 3600000 is in seconds (41.7 days); if you meant 3600000 milliseconds, write window: '1h'. Time options take seconds or a duration string ('500ms', '30s', '1m', '1h', '1d')",
    ]);
    await app.close();
  });
});
