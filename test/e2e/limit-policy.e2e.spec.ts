import { Controller, Get } from '@nestjs/common';
import {
  CountLimit,
  LimitContext,
  LimitType,
  RateLimit,
  RateLimitEvent,
  SlidingWindowLimit,
} from '../../src';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { call } from '../helpers/http';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Looked up asynchronously, as a database or cache of trusted clients would be. */
const trustedIps = new Set(['127.0.0.2']);
async function isTrusted(ctx: LimitContext): Promise<boolean> {
  await pause(5);
  return trustedIps.has(ctx.ip);
}

@Controller('policy')
class PolicyController {
  @Get('internal')
  @CountLimit({ limit: 2, period: 60, skip: (ctx) => ctx.request.headers['x-internal'] === 'yes' })
  internal() {
    return 'ok';
  }

  @Get('trusted')
  @CountLimit({ limitType: LimitType.IP, limit: 1, period: 60, skip: isTrusted })
  trusted() {
    return 'ok';
  }

  @Get('shadow')
  @SlidingWindowLimit({ limit: 3, window: 60, shadow: true })
  shadow() {
    return 'ok';
  }

  @Get('mixed')
  @CountLimit({ limit: 1, period: 60, shadow: true })
  @CountLimit({ limit: 5, period: 60 })
  mixed() {
    return 'ok';
  }

  @Get('waits')
  @RateLimit({ rate: 10, burst: 0.1, timeout: 1 })
  waits() {
    return 'ok';
  }
}

describe('skip, shadow and decision events', () => {
  const events: RateLimitEvent[] = [];
  const env = useAppOnRedis([PolicyController], 'express', {
    onDecision: (event) => events.push(event),
  });
  const get = (path: string, headers: Record<string, string> = {}, localAddress?: string) =>
    call(env.port, { path, headers, localAddress });
  beforeEach(() => {
    events.length = 0;
  });

  it('skips a limit by a header: not evaluated, no Redis command, no headers', async () => {
    await get('/policy/internal/none'); // a 404 warms the store's connection
    await afterStartUpCheck(env.admin);
    const before = await scriptCalls(env.admin);
    const skipped = await Promise.all(
      Array.from({ length: 5 }, () => get('/policy/internal', { 'x-internal': 'yes' })),
    );
    expect(skipped.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    expect(skipped[0].headers['x-ratelimit-limit']).toBeUndefined();
    expect(await scriptCalls(env.admin)).toBe(before);
    expect(await env.admin.exists('countLimit:~PolicyController.internal')).toBe(0);
    expect(events).toEqual(
      Array(5).fill({
        outcome: 'skipped',
        limit: '@CountLimit on PolicyController.internal',
        name: 'countLimit',
      }),
    );

    const counted = [];
    for (let i = 0; i < 3; i++) counted.push((await get('/policy/internal')).status);
    expect(counted).toEqual([200, 200, 429]);
    expect(await scriptCalls(env.admin)).toBe(before + 3);
  });

  it('skips by an async lookup of the client IP', async () => {
    const trusted = [];
    for (let i = 0; i < 3; i++)
      trusted.push((await get('/policy/trusted', {}, '127.0.0.2')).status);
    expect(trusted).toEqual([200, 200, 200]);
    const other = [];
    for (let i = 0; i < 2; i++) other.push((await get('/policy/trusted', {}, '127.0.0.3')).status);
    expect(other).toEqual([200, 429]);
    expect(events.map((event) => event.outcome)).toEqual([
      'skipped',
      'skipped',
      'skipped',
      'allowed',
      'denied',
    ]);
  });

  it('a shadow limit of 3 lets 10 requests through and reports 7 shadow-denied', async () => {
    const replies = [];
    for (let i = 0; i < 10; i++) replies.push(await get('/policy/shadow'));
    expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
    for (const reply of replies) {
      expect(reply.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(reply.headers['retry-after']).toBeUndefined();
    }
    const outcomes = events.map((event) => event.outcome);
    expect(outcomes.filter((outcome) => outcome === 'allowed')).toHaveLength(3);
    expect(outcomes.filter((outcome) => outcome === 'shadow-denied')).toHaveLength(7);
    expect(outcomes.slice(3)).toEqual(Array(7).fill('shadow-denied'));
    expect(events[9]).toMatchObject({
      limit: '@SlidingWindowLimit on PolicyController.shadow',
      key: 'slidingWindow:~PolicyController.shadow',
      decision: { allowed: false, limit: 3, remaining: 0 },
    });
    // Counted as usual: the window holds the 3 requests it admitted.
    expect(await env.admin.zcard('slidingWindow:~PolicyController.shadow')).toBe(3);
  });

  it('next to an enforced limit, a shadow limit neither refuses nor sets the headers', async () => {
    const replies = [];
    for (let i = 0; i < 6; i++) replies.push(await get('/policy/mixed'));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 429]);
    // The headers describe the enforced limit of 5, never the shadow limit of 1.
    expect(replies.map((reply) => reply.headers['x-ratelimit-remaining'])).toEqual([
      '4',
      '3',
      '2',
      '1',
      '0',
      '0',
    ]);
    // Decorators apply bottom-up: the shadow limit is the second of its kind, hence `#2:`.
    const shadowOutcomes = events
      .filter((event) => event.key === 'countLimit:#2:~PolicyController.mixed')
      .map((event) => event.outcome);
    expect(shadowOutcomes).toEqual(['allowed', ...Array(5).fill('shadow-denied')]);
  });

  it('reports allowed and denied with the key, the decision and the wait', async () => {
    const first = await get('/policy/waits');
    const second = await get('/policy/waits');
    const third = await get('/policy/waits');
    expect([first.status, second.status, third.status]).toEqual([200, 200, 200]);
    const limit = '@RateLimit on PolicyController.waits';
    const key = 'rateLimit:~PolicyController.waits';
    expect(events[0]).toEqual({
      outcome: 'allowed',
      limit,
      name: 'rateLimit',
      key,
      waitMs: 0,
      decision: expect.objectContaining({ allowed: true, waitMs: 0 }),
    });
    // burst 0.1 s at 10 a second holds one permit: the next request waits for the next one.
    const waited = events.slice(1).map((event) => event.waitMs ?? 0);
    expect(Math.max(...waited)).toBeGreaterThan(30);
    // Within a millisecond of one interval: Redis's TIME is the wall clock, which NTP may step.
    expect(Math.max(...waited)).toBeLessThanOrEqual(101);
    expect(second.elapsedMs + third.elapsedMs).toBeGreaterThan(30);

    await get('/policy/internal');
    await get('/policy/internal');
    events.length = 0;
    expect((await get('/policy/internal')).status).toBe(429);
    expect(events).toEqual([
      {
        outcome: 'denied',
        limit: '@CountLimit on PolicyController.internal',
        name: 'countLimit',
        key: 'countLimit:~PolicyController.internal',
        decision: expect.objectContaining({ allowed: false, limit: 2, remaining: 0 }),
      },
    ]);
    expect(events[0].decision!.retryAfterMs).toBeGreaterThan(0);
  });
});
