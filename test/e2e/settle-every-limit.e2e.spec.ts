import { Controller, Get, Module, Query } from '@nestjs/common';
import {
  CountLimit,
  LeakyBucketLimit,
  RateLimiterFactory,
  RateLimiterModule,
  SettleFunction,
  SlidingWindowLimit,
} from '../../src';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** The cost the handler reports: the tokens it used. */
const usedTokens: SettleFunction = (_ctx, { result }) => (result as { used: number }).used;
const used = (value: string) => ({ used: Number(value) });

// One permit back every 1024 s: nothing recovers during a test, and T stays exact.
const leaky = { capacity: 30, rate: 1 / 1024 };

@Controller('metered')
class MeteredController {
  @Get('count')
  @CountLimit({
    limit: 30,
    period: '1h',
    key: 'count:#{query.user}',
    permits: 10,
    settle: usedTokens,
  })
  count(@Query('used') value: string) {
    return used(value);
  }

  /** Two kinds on one handler, both corrected together; the daily log is the larger. */
  @Get('both')
  @CountLimit({
    limit: 30,
    period: '1h',
    key: 'both:#{query.user}',
    permits: 10,
    settle: usedTokens,
  })
  @SlidingWindowLimit({
    limit: 100,
    window: '1h',
    key: 'both:#{query.user}',
    permits: 10,
    settle: usedTokens,
  })
  both(@Query('used') value: string) {
    return used(value);
  }

  @Get('approximate')
  @SlidingWindowLimit({
    limit: 30,
    window: '1h',
    approximate: true,
    key: 'approx:#{query.user}',
    permits: 10,
    settle: usedTokens,
  })
  approximate(@Query('used') value: string) {
    return used(value);
  }

  @Get('leaky')
  @LeakyBucketLimit({ ...leaky, key: 'leaky:#{query.user}', permits: 10, settle: usedTokens })
  leaky(@Query('used') value: string) {
    return used(value);
  }
}

const CASES = PLATFORMS.flatMap((platform) =>
  (['redis', 'memory'] as const).map((store) => [platform, store] as const),
);

describe.each(CASES)('settle on every kind of limit, on %s, in %s', (platform, store) => {
  let redis: RedisServer;
  let port: number;
  let app: Awaited<ReturnType<typeof startApp>>['app'];
  let user = 0;
  const factory = () => app.get(RateLimiterFactory);
  const counted = async () =>
    (
      await factory()
        .countLimiter({ limit: 30, period: '1h', key: `count:${user}` })
        .peek()
    ).remaining;
  const both = async () => [
    (
      await factory()
        .countLimiter({ limit: 30, period: '1h', key: `both:${user}` })
        .peek()
    ).remaining,
    (
      await factory()
        .slidingWindowLimiter({ limit: 100, window: '1h', key: `both:${user}` })
        .peek()
    ).remaining,
  ];
  const get = (path: string, cost: number) =>
    call(port, { path: `/metered/${path}?used=${cost}&user=${user}` });
  const statuses = async (path: string, costs: number[]) => {
    const seen: number[] = [];
    for (const cost of costs) seen.push((await get(path, cost)).status);
    return seen;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    @Module({
      imports: [RateLimiterModule.forRoot(store === 'redis' ? { redis: redis.url } : {})],
      controllers: [MeteredController],
    })
    class AppModule {}
    ({ app, port } = await startApp(AppModule, platform));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });
  beforeEach(() => user++);

  it('@CountLimit: reserve 10, real cost 1 four times then 25: the next request is denied on a limit of 30', async () => {
    expect(await statuses('count', [1, 1, 1, 1, 25])).toEqual([200, 200, 200, 200, 200]);
    expect(await counted()).toBe(1);
    expect((await get('count', 1)).status).toBe(429);
    expect(await counted()).toBe(1);
  });

  it('@CountLimit and @SlidingWindowLimit on one handler are corrected together, all or nothing', async () => {
    expect(await statuses('both', [1, 1, 1, 1, 25])).toEqual([200, 200, 200, 200, 200]);
    expect(await both()).toEqual([1, 71]);
    expect((await get('both', 1)).status).toBe(429);
    // The denied request took nothing from the sliding log either.
    expect(await both()).toEqual([1, 71]);
  });

  it('a cost above the count leaves it in debt; the log, still under its limit, keeps nothing of denials', async () => {
    expect((await get('both', 45)).status).toBe(200);
    expect(await both()).toEqual([0, 55]);
    expect(await statuses('both', [1, 1])).toEqual([429, 429]);
    expect(await both()).toEqual([0, 55]);
  });

  it('the approximate window counts the real cost, into debt', async () => {
    expect(await statuses('approximate', [1, 1, 1, 1, 25])).toEqual([200, 200, 200, 200, 200]);
    expect((await get('approximate', 1)).status).toBe(429);
    const limiter = factory().slidingWindowLimiter({
      limit: 30,
      window: '1h',
      approximate: true,
      key: `approx:${user}`,
    });
    expect((await limiter.peek()).remaining).toBe(1);
  });

  it('@LeakyBucketLimit: debt answers a Retry-After for the time it takes to drain', async () => {
    expect((await get('leaky', 45)).status).toBe(200);
    const denied = await get('leaky', 1);
    expect(denied.status).toBe(429);
    // A TAT 45 T ahead; a request of 10 fits once it is 20 T ahead: 25 T of 1024 s.
    expect(denied.headers['retry-after']).toBe(String(25 * 1024));
  });
});
