import { Controller, Get, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { RateLimiterModule, SlidingWindowLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS } from '../helpers/http';

@Controller()
class SearchController {
  @Get('search')
  @SlidingWindowLimit({ limit: 3, window: 60, approximate: true })
  search() {
    return 'ok';
  }

  @Get('exact')
  @SlidingWindowLimit({ limit: 1, window: 60, approximate: false })
  exact() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('@SlidingWindowLimit({ approximate: true }) on %s', (platform) => {
  const env = useAppOnRedis([SearchController], platform);

  it('allows the limit, then answers 429 with the retry time, under its own prefix', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(env.port, { path: '/search' })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const denied = await call(env.port, { path: '/search' });
    expect(denied.status).toBe(429);
    // Spent in this window: at least the rest of it, at most two windows.
    expect(Number(denied.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(denied.headers['retry-after'])).toBeLessThanOrEqual(120);
    const state = await env.admin.get('slidingWindowApprox:~SearchController.search');
    expect(state?.split(' ').slice(1)).toEqual(['3', '0']);
  });

  it('approximate: false keeps the exact log', async () => {
    expect((await call(env.port, { path: '/exact' })).status).toBe(200);
    expect((await call(env.port, { path: '/exact' })).status).toBe(429);
    expect(await env.admin.type('slidingWindow:~SearchController.exact')).toBe('zset');
  });
});

describe('@SlidingWindowLimit approximate option at start-up', () => {
  it('rejects a value that is not a boolean, naming class, method and option', async () => {
    @Controller()
    class BadApproximate {
      @Get()
      @SlidingWindowLimit({ limit: 1, window: 1, approximate: 'yes' as unknown as boolean })
      handler() {}
    }
    @Module({ imports: [RateLimiterModule.forRoot()], controllers: [BadApproximate] })
    class AppModule {}
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(
      "@SlidingWindowLimit on BadApproximate.handler: option 'approximate' must be a boolean, got 'yes'",
    );
    await app.close();
  });
});
