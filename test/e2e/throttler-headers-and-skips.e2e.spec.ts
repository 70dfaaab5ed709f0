import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { SkipThrottle, ThrottlerGuard, ThrottlerModule } from '@nestjs/throttler';
import { RateLimiterModule, SkipRateLimit } from '../../src';
import { createTestingStore, ManualClock } from '../../src/testing';
import { call, HttpReply, PLATFORMS, startApp } from '../helpers/http';

/**
 * What docs/migrating-from-throttler.md says differs, shown on both sides: @nestjs/throttler 6
 * (the installed one) with two named throttlers, and the same app ported. Every throttler
 * here allows 3 then 5 requests a minute per client.
 */
const MINUTE_MS = 60_000;

@Controller('items')
class ThrottledController {
  @Get()
  list() {
    return [];
  }

  @Get('status')
  @SkipThrottle()
  status() {
    return 'ok';
  }

  @Get('health')
  @SkipThrottle({ short: true, long: true })
  health() {
    return 'ok';
  }
}

@Module({
  imports: [
    ThrottlerModule.forRoot([
      { name: 'short', ttl: MINUTE_MS, limit: 3 },
      { name: 'long', ttl: MINUTE_MS, limit: 5 },
    ]),
  ],
  controllers: [ThrottledController],
  providers: [{ provide: APP_GUARD, useClass: ThrottlerGuard }],
})
class ThrottlerApp {}

@Controller('items')
class PortedController {
  @Get()
  list() {
    return [];
  }

  @Get('status')
  @SkipRateLimit()
  status() {
    return 'ok';
  }
}

const clock = new ManualClock();
const store = createTestingStore({ clock });

@Module({
  imports: [
    RateLimiterModule.forRoot({
      store,
      headers: 'both',
      defaults: [
        { name: 'short', algorithm: 'countLimit', limit: 3, period: '1m' },
        { name: 'long', algorithm: 'countLimit', limit: 5, period: '1m' },
      ],
    }),
  ],
  controllers: [PortedController],
})
class PortedApp {}

/** Sends `count` requests one after another; returns every reply. */
async function replies(port: number, path: string, count: number): Promise<HttpReply[]> {
  const result = [];
  for (let i = 0; i < count; i++) result.push(await call(port, { path }));
  return result;
}

describe.each(PLATFORMS)('@nestjs/throttler 6 with named throttlers, on %s', (platform) => {
  let app: INestApplication;
  let port: number;
  beforeAll(async () => ({ app, port } = await startApp(ThrottlerApp, platform)));
  afterAll(() => app.close());

  it("puts each throttler's name on its headers, and sends no plain Retry-After", async () => {
    const [, , third, refused] = await replies(port, '/items', 4);
    expect(third.headers['x-ratelimit-remaining-short']).toBe('0');
    expect(third.headers['x-ratelimit-remaining-long']).toBe('2');
    expect(third.headers['x-ratelimit-remaining']).toBeUndefined();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after-short'])).toBeGreaterThan(55);
    expect(refused.headers['retry-after']).toBeUndefined();
  });

  it('@SkipThrottle() skips only a throttler named default: the named ones still apply', async () => {
    const statuses = (await replies(port, '/items/status', 4)).map((reply) => reply.status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('@SkipThrottle({ short: true, long: true }) skips them', async () => {
    const statuses = (await replies(port, '/items/health', 6)).map((reply) => reply.status);
    expect(statuses).toEqual(Array(6).fill(200));
  });
});

describe.each(PLATFORMS)('the same app on nestjs-limiter, on %s', (platform) => {
  let app: INestApplication;
  let port: number;
  beforeAll(async () => ({ app, port } = await startApp(PortedApp, platform)));
  afterAll(() => app.close());
  beforeEach(() => store.clear());

  it('sends one set of legacy headers, RateLimit by name, and a plain Retry-After', async () => {
    const [, , third, refused] = await replies(port, '/items', 4);
    expect(third.headers['x-ratelimit-remaining']).toBe('0'); // the limit with the least left
    expect(third.headers['x-ratelimit-remaining-short']).toBeUndefined();
    expect(third.headers['ratelimit-policy']).toBe('"short";q=3;w=60, "long";q=5;w=60');
    expect(third.headers['ratelimit']).toBe('"short";r=0;t=60, "long";r=2;t=60');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.headers['retry-after-short']).toBeUndefined();
  });

  it('@SkipRateLimit() skips every limit, the defaults included', async () => {
    const skipped = await replies(port, '/items/status', 6);
    expect(skipped.map((reply) => reply.status)).toEqual(Array(6).fill(200));
    expect(skipped[5].headers['x-ratelimit-remaining']).toBeUndefined();
  });
});
