import { Controller, Get, Query } from '@nestjs/common';
import { ConcurrencyLimit, RateLimiterFactory } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

@Controller()
class ExportController {
  @Get('export')
  @ConcurrencyLimit({ key: 'export:#{query.user}', max: 1, lease: 60 })
  export(@Query('user') user: string) {
    return user;
  }
}

describe.each(PLATFORMS)('a blocked concurrency key through the guard on %s', (platform) => {
  const env = useAppOnRedis([ExportController], platform);

  it("answers Retry-After with the block's end, not the 1 s hint of a busy slot", async () => {
    const factory = env.app.get(RateLimiterFactory);
    await factory.concurrencyLimiter({ key: `export:${platform}`, max: 1, lease: 60 }).block(120);
    const denied = await call(env.port, { path: `/export?user=${platform}` });
    expect(denied.status).toBe(429);
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(118);
    expect(Number(denied.headers['retry-after'])).toBeLessThanOrEqual(120);
    expect((await call(env.port, { path: '/export?user=other' })).status).toBe(200);
  });
});
