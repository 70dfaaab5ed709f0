import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, LeakyBucketLimit, MemoryStore, RateLimit } from '../../src';
import { RateLimiterModule } from '../../src';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * A bucket or a block written under a typo'd option, then the option corrected: clients get
 * the corrected limit's answer at once, not the old state's until it expires. On Redis the
 * correction is a restart (a new module on the same server); in memory, where state lives as
 * long as the app, the options are functions of the request whose value is corrected while it
 * runs. A settled debt under unchanged options is still owed.
 */
interface Options {
  /** The token bucket's rate: one per 10000 s typo'd, one per 10 s meant. */
  rate: number;
  /** The leaky bucket's. */
  leakyRate: number;
  /** Seconds blocked after a denial. */
  block: number;
}
const TYPO: Options = { rate: 0.0001, leakyRate: 0.0001, block: 3600 };
const MEANT: Options = { rate: 0.1, leakyRate: 0.1, block: 10 };

type Option = <K extends keyof Options>(name: K) => Options[K] | (() => Options[K]);

function appWith(option: Option, store: { redis: string } | { store: MemoryStore }) {
  @Controller()
  class CorrectedController {
    /** Each request costs 5 once it has run: 4 more than reserved, charged as debt. */
    @Get('tokens')
    @RateLimit({ rate: option('rate'), capacity: 1, key: 'tokens', settle: () => 5 })
    tokens() {
      return 'ok';
    }

    @Get('leaky')
    @LeakyBucketLimit({ capacity: 1, rate: option('leakyRate'), key: 'leaky' })
    leaky() {
      return 'ok';
    }

    @Get('blocked')
    @CountLimit({ limit: 1, period: 10, block: option('block'), key: 'blocked' })
    blocked() {
      return 'ok';
    }
  }
  @Module({ imports: [RateLimiterModule.forRoot(store)], controllers: [CorrectedController] })
  class AppModule {}
  return startApp(AppModule, 'express');
}

/** The status and Retry-After (s) of each request to `path`, one after another. */
async function answers(port: number, path: string, times: number): Promise<[number, string?][]> {
  const seen: [number, string?][] = [];
  for (let i = 0; i < times; i++) {
    const { status, headers } = await call(port, { path });
    seen.push([status, headers['retry-after'] as string | undefined]);
  }
  return seen;
}

/** Runs the app under `before`, then under `after`, on the same state. */
type Stages = (
  before: Options,
  after: Options,
) => Promise<{
  port(): number;
  correct(): Promise<void>;
  close(): Promise<void>;
}>;

describe.each<[string, (redis: RedisServer) => Stages]>([
  [
    'Redis, restarted',
    (redis) => async (before, after) => {
      let app: INestApplication;
      let port: number;
      const start = async (options: Options) => {
        ({ app, port } = await appWith((name) => options[name], { redis: redis.url }));
      };
      await start(before);
      return {
        port: () => port,
        correct: async () => {
          await app.close();
          await start(after);
        },
        close: () => app.close(),
      };
    },
  ],
  [
    'memory, corrected while it runs',
    () => async (before, after) => {
      let live = before;
      const { app, port } = await appWith((name) => () => live[name], {
        store: new MemoryStore(),
      });
      return {
        port: () => port,
        correct: async () => {
          live = after;
        },
        close: () => app.close(),
      };
    },
  ],
])('state under older options, on %s', (_name, stagesOn) => {
  let redis: RedisServer;
  let stages: Stages;
  beforeAll(async () => {
    redis = await startRedisServer();
    stages = stagesOn(redis);
  });
  afterAll(() => redis.stop());
  afterEach(() => redis.client().flushall());

  it('answers the corrected rates and block at once', async () => {
    const app = await stages(TYPO, MEANT);
    try {
      // 1 + 4 settled permits at one per 10000 s: 50,000 s owed.
      expect(await answers(app.port(), '/tokens', 2)).toEqual([
        [200, undefined],
        [429, '50000'],
      ]);
      expect(await answers(app.port(), '/leaky', 2)).toEqual([
        [200, undefined],
        [429, '10000'],
      ]);
      expect(await answers(app.port(), '/blocked', 2)).toEqual([
        [200, undefined],
        [429, '3600'],
      ]);

      await app.correct();
      const corrected = {
        tokens: await answers(app.port(), '/tokens', 1),
        leaky: await answers(app.port(), '/leaky', 1),
        blocked: await answers(app.port(), '/blocked', 1),
      };
      expect(corrected).toEqual({
        tokens: [[429, '10']],
        leaky: [[429, '10']],
        blocked: [[429, '10']],
      });
    } finally {
      await app.close();
    }
  });

  it('still owes a settled debt under unchanged options', async () => {
    const app = await stages(MEANT, MEANT);
    try {
      // 1 + 4 settled permits at one per 10 s: 50 s owed.
      expect(await answers(app.port(), '/tokens', 2)).toEqual([
        [200, undefined],
        [429, '50'],
      ]);
      await app.correct();
      const [[status, retryAfter]] = await answers(app.port(), '/tokens', 1);
      expect(status).toBe(429);
      // Whole seconds rounded up, and the seconds the restart took.
      expect(Number(retryAfter)).toBeGreaterThan(40);
      expect(Number(retryAfter)).toBeLessThanOrEqual(50);
    } finally {
      await app.close();
    }
  });
});
