import { Controller, Get, UseGuards } from '@nestjs/common';
import { CountLimit, LimitType, RateLimitEvent, SkipRateLimit } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { HeaderAuthGuard } from '../helpers/header-auth-guard';
import { call, PLATFORMS } from '../helpers/http';

/**
 * A typical @nestjs/throttler app, ported as docs/migrating-from-throttler.md says:
 * - ThrottlerModule.forRoot([{ name: 'short', ttl: 60000, limit: 3 }, { name: 'long', ttl: 60000, limit: 5 }])
 *   with getTracker returning req.user.id -> defaults with limitType USER (ms -> seconds);
 * - @Throttle({ short: { limit: 10, ttl: 60000 } }) -> @SkipRateLimit('short') and the route's
 *   own @CountLimit({ name: 'search', ... }), under a name of its own;
 * - @SkipThrottle({ short: true }) -> @SkipRateLimit('short').
 */
@Controller('items')
@UseGuards(HeaderAuthGuard)
class ItemsController {
  @Get()
  list() {
    return [];
  }

  @Get('search')
  @SkipRateLimit('short')
  @CountLimit({ name: 'search', limit: 10, period: 60, limitType: LimitType.USER })
  search() {
    return [];
  }

  @Get('status')
  @SkipRateLimit('short')
  status() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('a throttler app ported to nestjs-limiter on %s', (platform) => {
  const events: RateLimitEvent[] = [];
  const env = useAppOnRedis([ItemsController], platform, {
    onDecision: (event) => void events.push(event),
    defaults: [
      { name: 'short', algorithm: 'countLimit', limit: 3, period: 60, limitType: LimitType.USER },
      { name: 'long', algorithm: 'countLimit', limit: 5, period: 60, limitType: LimitType.USER },
    ],
  });
  const statuses = async (path: string, users: string[]) => {
    const result = [];
    for (const user of users) {
      result.push((await call(env.port, { path, headers: { 'x-user': user } })).status);
    }
    return result;
  };

  it('the throttlers become defaults, tracked by the user the app authenticated', async () => {
    expect(await statuses('/items', ['alice', 'alice', 'bob', 'alice', 'alice'])).toEqual([
      200, 200, 200, 200, 429,
    ]);
    expect(await env.admin.get('countLimit:~ItemsController.list:bob')).toBe('1');
  });

  it("@Throttle becomes the route's own limit, named apart from the default it stands in for", async () => {
    events.length = 0;
    // 'search' is 10 here, so 'long' (5) decides.
    expect(await statuses('/items/search', Array(6).fill('carol'))).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
    // Metrics and live overrides tell it from every other route's 'short'.
    expect(new Set(events.map((event) => event.name))).toEqual(new Set(['search', 'long']));
  });

  it("@SkipThrottle({ short: true }) becomes @SkipRateLimit('short')", async () => {
    expect(await statuses('/items/status', Array(6).fill('dave'))).toEqual([
      200, 200, 200, 200, 200, 429,
    ]);
  });
});
