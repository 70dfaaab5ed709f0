import { Controller, Get, UseGuards } from '@nestjs/common';
import { CountLimit, LimitType, RateLimitEvent, RateLimitGuard } from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { HeaderAuthGuard } from '../helpers/header-auth-guard';
import { call, PLATFORMS } from '../helpers/http';

/** The global guard, and the README's old auth advice on top: `@UseGuards(Auth, RateLimitGuard)`. */
@Controller('twice')
class TwiceController {
  @Get()
  @UseGuards(RateLimitGuard)
  @CountLimit({ limit: 4, period: 60 })
  get() {
    return 'ok';
  }

  @Get('user')
  @UseGuards(HeaderAuthGuard, RateLimitGuard)
  @CountLimit({ limitType: LimitType.USER, limit: 2, period: 60 })
  user() {
    return 'ok';
  }
}

describe.each(PLATFORMS)('a RateLimitGuard bound twice on %s', (platform) => {
  const env = useAppOnRedis([TwiceController], platform);

  it('decides each request once: a limit of 4 lets exactly 4 of 20 through', async () => {
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => call(env.port, { path: '/twice' })),
    );
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(4);
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(16);
  });

  it('a USER limit behind the auth guard is decided once too, by user', async () => {
    const statuses = [];
    for (const user of ['alice', 'alice', 'bob', 'alice']) {
      statuses.push(
        (await call(env.port, { path: '/twice/user', headers: { 'x-user': user } })).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await env.admin.get('countLimit:~TwiceController.user:bob')).toBe('1');
  });
});

@Controller('three')
class ThreeLimitsController {
  @Get()
  @CountLimit({ name: 'minute', key: 'minute', limit: 10, period: 60 })
  @CountLimit({ name: 'hour', key: 'hour', limit: 10, period: 3600 })
  @CountLimit({ name: 'once', key: 'once', limit: 1, period: 60 })
  get() {
    return 'ok';
  }
}

describe('events of a request that one of three limits denies', () => {
  const events: RateLimitEvent[] = [];
  const env = useAppOnRedis([ThreeLimitsController], 'express', {
    onDecision: (event) => events.push(event),
  });

  it('report the members it undid as undone, not allowed', async () => {
    expect((await call(env.port, { path: '/three' })).status).toBe(200);
    const byName = () =>
      Object.fromEntries(events.splice(0).map((event) => [event.name, event.outcome]));
    expect(byName()).toEqual({ minute: 'allowed', hour: 'allowed', once: 'allowed' });
    expect((await call(env.port, { path: '/three' })).status).toBe(429);
    expect(byName()).toEqual({ minute: 'undone', hour: 'undone', once: 'denied' });
    // Undone indeed: the denied request counted on neither of the others.
    expect(await env.admin.get('countLimit:minute')).toBe('1');
    expect(await env.admin.get('countLimit:hour')).toBe('1');
  });
});
