import {
  Body,
  Controller,
  Get,
  HttpCode,
  Post,
  Query,
  UnauthorizedException,
} from '@nestjs/common';
import { CountLimit, RateLimit, RateLimiterFactory, RateLimiterModule } from '../../src';
import { rateLimitDefinition } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { INestApplication, Module } from '@nestjs/common';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const handled = { wrong: 0, right: 0 };

@Controller()
class StateController {
  /** 5 failed logins a minute per user; successful ones never count. */
  @Post('login')
  @HttpCode(200)
  @CountLimit({ key: 'login:#{body.user}', limit: 5, period: 60, count: 'failures' })
  async login(@Body() body: { user: string; password: string }) {
    await pause(5);
    if (body.password !== 'right') {
      handled.wrong++;
      throw new UnauthorizedException();
    }
    handled.right++;
    return { ok: true };
  }

  /** 2 codes per half second; a denial blocks the user for 2 s. */
  @Post('code')
  @HttpCode(200)
  @CountLimit({ key: 'code:#{body.user}', limit: 2, period: 1, block: 4 })
  code() {
    return 'ok';
  }

  /** A: a bucket of 10; B: one request a minute. */
  @Get('both')
  @RateLimit({ key: 'both:#{query.k}', rate: 1 / 6, burst: 60, timeout: 30 })
  @CountLimit({ key: 'both:#{query.k}', limit: 1, period: 60 })
  both(@Query('k') k: string) {
    return k;
  }
}

describe.each(PLATFORMS)('state you can act on, through the guard on %s', (platform) => {
  const env = useAppOnRedis([StateController], platform);
  const login = (user: string, password: string) =>
    call(env.port, { method: 'POST', path: '/login', json: { user, password } });
  const code = (user: string) => call(env.port, { method: 'POST', path: '/code', json: { user } });
  const evalCalls = async () => {
    const stats = await env.admin.info('commandstats');
    const calls = [...stats.matchAll(/cmdstat_(?:evalsha|fcall):calls=(\d+)/g)];
    return calls.reduce((sum, match) => sum + Number(match[1]), 0);
  };

  beforeEach(() => {
    handled.wrong = 0;
    handled.right = 0;
  });

  it('5 failures a minute: successful logins pass and never count; the 6th failure gets 429', async () => {
    const user = `alice-${platform}`;
    for (let i = 0; i < 4; i++) expect((await login(user, 'wrong')).status).toBe(401);
    for (let i = 0; i < 20; i++) expect((await login(user, 'right')).status).toBe(200);
    expect((await login(user, 'wrong')).status).toBe(401);
    expect(await env.admin.get(`countLimit:login:${user}`)).toBe('5');
    const sixth = await login(user, 'wrong');
    expect(sixth.status).toBe(429);
    expect(handled).toEqual({ wrong: 5, right: 20 });
  });

  it('200 logins at once, 150 with the right password: at most 5 wrong ones reach the handler', async () => {
    const user = `bob-${platform}`;
    const replies = await Promise.all(
      Array.from({ length: 200 }, (_, i) => login(user, i % 4 === 0 ? 'wrong' : 'right')),
    );
    expect(handled.wrong).toBeLessThanOrEqual(5);
    expect(replies.filter((reply) => reply.status === 401)).toHaveLength(handled.wrong);
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(handled.right);
    expect(handled.right).toBeGreaterThan(0);
  });

  it('a factory limiter with the decorator key resets the decorator state', async () => {
    const user = `carol-${platform}`;
    for (let i = 0; i < 5; i++) await login(user, 'wrong');
    expect((await login(user, 'wrong')).status).toBe(429);
    const factory = env.app.get(RateLimiterFactory);
    const limiter = factory.countLimiter({ key: `login:${user}`, limit: 5, period: 60 });
    expect(await limiter.peek()).toMatchObject({ limit: 5, remaining: 0, blockedMs: 0 });
    await limiter.reset();
    expect((await login(user, 'right')).status).toBe(200);
    expect((await login(user, 'wrong')).status).toBe(401);
    expect(await env.admin.get(`countLimit:login:${user}`)).toBe('1');
  });

  it('a block outlasts the window, is not extended by refused requests, and costs Redis nothing', async () => {
    const user = `dave-${platform}`;
    // Three at once: two fit the window of 2 however slow the machine, the third starts the block.
    const sentAt = Date.now();
    const first = await Promise.all([code(user), code(user), code(user)]);
    const deniedAt = Date.now();
    expect(first.map((reply) => reply.status).sort()).toEqual([200, 200, 429]);
    expect(first.find((reply) => reply.status === 429)!.headers['retry-after']).toBe('4');
    await pause(sentAt + 1100 - Date.now()); // the 1 s window is over; the 4 s block is not
    const calls = await evalCalls();
    for (let i = 0; i < 10; i++) {
      const refused = await code(user);
      // Decided before this reply came, so inside the block unless the machine was that slow.
      if (Date.now() < sentAt + 4000) expect(refused.status).toBe(429);
    }
    expect(await evalCalls()).toBe(calls);
    // What is left of the block, from the test's own clock: the block began between sentAt and
    // deniedAt, and this decision between laterSentAt and laterAt.
    const laterSentAt = Date.now();
    const later = await code(user);
    const laterAt = Date.now();
    const left = (elapsedMs: number) => Math.ceil((4000 - elapsedMs) / 1000);
    if (laterAt < sentAt + 4000) {
      const retryAfter = Number(later.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(left(laterAt - sentAt));
      expect(retryAfter).toBeLessThanOrEqual(left(laterSentAt - deniedAt));
    }
    // Had a refused request extended the block, it would still run past this moment.
    await pause(deniedAt + 4100 - Date.now());
    expect((await code(user)).status).toBe(200);
  });

  it('after a denial by limit B, limit A’s key holds exactly what it held before', async () => {
    const k = `k-${platform}`;
    expect((await call(env.port, { path: `/both?k=${k}` })).status).toBe(200);
    const before = await env.admin.getBuffer(`rateLimit:both:${k}`);
    const dump = await env.admin.dumpBuffer(`rateLimit:both:${k}`);
    const calls = await evalCalls();
    expect((await call(env.port, { path: `/both?k=${k}` })).status).toBe(429);
    // Undone inside the one engine script call that decided both: no refund call followed.
    expect(await evalCalls()).toBe(calls + 1);
    expect(await env.admin.getBuffer(`rateLimit:both:${k}`)).toEqual(before);
    expect(await env.admin.dumpBuffer(`rateLimit:both:${k}`)).toEqual(dump);

    // A bucket that did not exist is not created, and a reservation that would have
    // waited (timeout 30 s) is given back too.
    const fresh = `fresh-${platform}`;
    await env.admin.set(`countLimit:both:${fresh}`, '1', 'PX', 60_000);
    await env.admin.set(`rateLimit:both:${fresh}`, String(Date.now() * 1000 + 10_000_000));
    const waiting = await env.admin.getBuffer(`rateLimit:both:${fresh}`);
    expect((await call(env.port, { path: `/both?k=${fresh}` })).status).toBe(429);
    expect(await env.admin.getBuffer(`rateLimit:both:${fresh}`)).toEqual(waiting);
    const none = `none-${platform}`;
    await env.admin.set(`countLimit:both:${none}`, '1', 'PX', 60_000);
    expect((await call(env.port, { path: `/both?k=${none}` })).status).toBe(429);
    expect(await env.admin.exists(`rateLimit:both:${none}`)).toBe(0);
  });
});

describe('all or nothing in memory', () => {
  let app: INestApplication;
  let port: number;
  beforeAll(async () => {
    @Module({ imports: [RateLimiterModule.forRoot()], controllers: [StateController] })
    class MemoryModule {}
    ({ app, port } = await startApp(MemoryModule, 'express'));
  });
  afterAll(() => app.close());

  it('a request denied by one limit leaves the other as it was, undone in the same run', async () => {
    const bucket = app
      .get(RateLimiterFactory)
      .rateLimiter({ key: 'both:m', rate: 1 / 6, burst: 60 });
    expect((await call(port, { path: '/both?k=m' })).status).toBe(200);
    expect((await bucket.peek()).remaining).toBe(9);
    const refund = jest.spyOn(rateLimitDefinition.ops.refund!, 'step');
    expect((await call(port, { path: '/both?k=m' })).status).toBe(429);
    expect((await bucket.peek()).remaining).toBe(9);
    expect(refund).not.toHaveBeenCalled();
    refund.mockRestore();
  });
});
