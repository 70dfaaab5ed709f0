import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import {
  LimitType,
  RateLimit,
  RateLimiterAdminModule,
  RateLimiterModule,
  SlidingWindowLimit,
} from '../../src';
import { adminCall, TokenAdminGuard } from '../helpers/admin-app';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Requests that cost 2 permits each. */
@Controller('take')
class CostController {
  @Get('log')
  @SlidingWindowLimit({ name: 'log', limit: 5, window: 60, permits: 2, limitType: LimitType.IP })
  log() {
    return 'ok';
  }

  @Get('bucket')
  @RateLimit({ name: 'bucket', rate: 1 / 60, burst: 300, permits: 2, limitType: LimitType.IP })
  bucket() {
    return 'ok';
  }
}

const where = (decorator: string, handler: string) => `${decorator} on CostController.${handler}`;

/**
 * The admin API's peek reports the key as it stands, like `limiter.peek()`: whatever the
 * limit's own cost, no request of its own is counted.
 */
describe.each(PLATFORMS)('admin peek on %s', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  beforeAll(async () => {
    redis = await startRedisServer();
    @Module({
      imports: [
        RateLimiterModule.forRoot({ redis: redis.url }),
        RateLimiterAdminModule.forRoot({ path: 'rate-limits', guards: [TokenAdminGuard] }),
      ],
      controllers: [CostController],
    })
    class AdminPeekModule {}
    ({ app, port } = await startApp(AdminPeekModule, platform));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  it('a sliding log with one request of 2: 3 left, reset when it leaves the window', async () => {
    expect((await call(port, { path: '/take/log' })).status).toBe(200);
    const ref = {
      limit: where('@SlidingWindowLimit', 'log'),
      name: 'log',
      key: 'slidingWindow:~CostController.log:127.0.0.1',
    };
    const peek = await adminCall(port, 'POST', 'api/peek', ref);
    expect(peek.status).toBe(200);
    const { resetMs, ...rest } = peek.body;
    expect(rest).toEqual({ limit: 5, remaining: 3, blockedMs: 0 });
    // Redis's clock has moved on since the request (a trial request would say 60,000).
    expect(resetMs).toBeGreaterThan(50_000);
    expect(resetMs).toBeLessThan(60_000);
  });

  it('a token bucket with 2 of 5 permits taken: 3 left, 2 minutes to full', async () => {
    expect((await call(port, { path: '/take/bucket' })).status).toBe(200);
    const ref = {
      limit: where('@RateLimit', 'bucket'),
      name: 'bucket',
      key: 'rateLimit:~CostController.bucket:127.0.0.1',
    };
    const peek = await adminCall(port, 'POST', 'api/peek', ref);
    expect(peek.status).toBe(200);
    const { resetMs, ...rest } = peek.body;
    expect(rest).toEqual({ limit: 5, remaining: 3, blockedMs: 0 });
    // A permit a minute: full again 2 minutes after the request (a trial of 2 would say 4).
    expect(resetMs).toBeGreaterThan(110_000);
    expect(resetMs).toBeLessThanOrEqual(120_000);
  });
});
