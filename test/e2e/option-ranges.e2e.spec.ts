import { Controller, Get, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  CountLimit,
  LeakyBucketLimit,
  LimitType,
  MemoryStore,
  RateLimit,
  RateLimiterModule,
  SlidingWindowLimit,
} from '../../src';
import { adminCall, startAdminApp } from '../helpers/admin-app';
import { call } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const TIMES = 'from 1ms to 3650d (0.001 to 315360000 seconds)';
const RATES = 'from 3.1709791983764586e-9 (one per 3650d) to 1000000 (one a µs) per second';

/** Starts an app of one controller on the memory store; rejects with its start-up error. */
async function init(controller: new () => unknown): Promise<void> {
  @Module({
    imports: [RateLimiterModule.forRoot({ store: new MemoryStore() })],
    controllers: [controller],
  })
  class AppModule {}
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
  const app = moduleRef.createNestApplication({ logger: false });
  try {
    await app.init();
  } finally {
    await app.close();
  }
}

describe('a value the engine cannot compute exactly fails start-up, naming the range', () => {
  it.each([
    [
      'an approximate window of a year written in ms',
      SlidingWindowLimit({ approximate: true, limit: 5, window: 31_536_000_000 }),
      `@SlidingWindowLimit on C.m: option 'window' must be ${TIMES}, got 31536000000`,
    ],
    [
      'an approximate window whose limit * window passes 2^53 µs',
      SlidingWindowLimit({ approximate: true, limit: 1_000_000, window: '1d' }),
      "@SlidingWindowLimit on C.m: option 'window' must be at most 9007.199254 seconds with option 'limit' at 1000000 (limit * window in µs below 2^53), got '1d'",
    ],
    [
      'a period of 1e300',
      CountLimit({ limit: 1, period: 1e300 }),
      `@CountLimit on C.m: option 'period' must be ${TIMES}, got 1e+300`,
    ],
    [
      'a period under a millisecond',
      CountLimit({ limit: 1, period: 1e-9 }),
      `@CountLimit on C.m: option 'period' must be ${TIMES}, got 1e-9`,
    ],
    [
      'a window under a millisecond',
      SlidingWindowLimit({ limit: 1, window: 1e-9 }),
      `@SlidingWindowLimit on C.m: option 'window' must be ${TIMES}, got 1e-9`,
    ],
    [
      'a block of 1e15 s',
      CountLimit({ limit: 1, period: 1, block: [1e15] }),
      `@CountLimit on C.m: option 'block[0]' must be ${TIMES}, got 1000000000000000`,
    ],
    [
      'an escalating block step of 1e300 s',
      CountLimit({ limit: 1, period: 1, block: [1, 1e300] }),
      `@CountLimit on C.m: option 'block[1]' must be ${TIMES}, got 1e+300`,
    ],
    [
      'a token-bucket rate of 1e-300',
      RateLimit({ rate: 1e-300 }),
      `@RateLimit on C.m: option 'rate' must be ${RATES}, got 1e-300`,
    ],
    [
      'a token bucket of one permit every 1e12 s',
      RateLimit({ rate: 1e-12, capacity: 1 }),
      `@RateLimit on C.m: option 'rate' must be ${RATES}, got 1e-12`,
    ],
    [
      'a token bucket whose capacity takes longer than 3650 days to fill',
      RateLimit({ rate: 0.001, capacity: 1e9 }),
      "@RateLimit on C.m: option 'capacity' must be at most rate * 3650d (option 'rate' is 0.001: 315360), got 1000000000",
    ],
    [
      'an expire of 1e300',
      RateLimit({ rate: 1, expire: 1e300 }),
      "@RateLimit on C.m: option 'expire' must be at most 3650d (315360000 s), got 1e+300",
    ],
    [
      'a leaky rate of 1e-300',
      LeakyBucketLimit({ capacity: 1, rate: 1e-300 }),
      `@LeakyBucketLimit on C.m: option 'rate' must be ${RATES}, got 1e-300`,
    ],
    [
      'a count above 10^12',
      CountLimit({ limit: 1e15, period: 1 }),
      "@CountLimit on C.m: option 'limit' must be at most 1000000000000, got 1000000000000000",
    ],
  ])('%s', async (_, decorator, message) => {
    @Controller()
    class C {
      @Get() @(decorator as MethodDecorator) m() {}
    }
    await expect(init(C)).rejects.toThrow(message);
  });
});

/** An approximate window of 5 a minute, named for the admin API. */
@Controller('approx')
class ApproxController {
  @Get()
  @SlidingWindowLimit({
    name: 'approx',
    approximate: true,
    limit: 5,
    window: 60,
    limitType: LimitType.IP,
  })
  hit() {
    return 'ok';
  }
}

describe('an admin override the engine cannot compute exactly answers 400', () => {
  let redis: RedisServer;
  let port: number;
  let close: () => Promise<void>;

  beforeAll(async () => {
    redis = await startRedisServer();
    const started = await startAdminApp('express', { redis: redis.url }, [ApproxController]);
    port = started.port;
    close = () => started.app.close();
  });
  afterAll(async () => {
    await close?.();
    await redis?.stop();
  });

  it('refuses window 31536000000 (a year in ms) and 1e-9, and the route keeps its limit', async () => {
    const replies = await Promise.all(
      [31_536_000_000, 1e-9].map((window) =>
        adminCall(port, 'PUT', 'api/overrides/approx', { options: { window }, ttl: 60 }),
      ),
    );
    expect(replies.map((reply) => reply.status)).toEqual([400, 400]);
    expect(replies[0].body.message).toBe(
      `@SlidingWindowLimit on ApproxController.hit: option 'window' must be ${TIMES}, got 31536000000`,
    );
    expect((await adminCall(port, 'GET', 'api/overrides')).body).toEqual({ overrides: [] });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await call(port, { path: '/approx' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });
});
