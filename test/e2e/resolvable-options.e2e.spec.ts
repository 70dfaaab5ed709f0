import {
  Controller,
  Get,
  INestApplication,
  MiddlewareConsumer,
  Module,
  NestModule,
} from '@nestjs/common';
import Redis from 'ioredis';
import { CountLimit, LimitContext, LimitType, RateLimit, RateLimiterModule } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { afterStartUpCheck, scriptCalls } from '../helpers/command-stats';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const PLANS: Record<string, { id: string; plan: 'pro' | 'free' }> = {
  'token-ann': { id: 'ann', plan: 'pro' },
  'token-bob': { id: 'bob', plan: 'free' },
};

/** An async lookup, as a plan read from a database or cache would be. */
async function periodOf(ctx: LimitContext): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2));
  return ctx.user?.plan === 'pro' ? 60 : 120;
}

@Controller('tiers')
class TiersController {
  @Get()
  @CountLimit({
    limitType: LimitType.USER,
    limit: (ctx) => (ctx.user?.plan === 'pro' ? 5 : 2),
    period: periodOf,
  })
  tiered() {
    return 'ok';
  }

  @Get('bad')
  @RateLimit({ rate: 1, burst: 5, permits: (ctx) => parsePermits(ctx.request.query.permits) })
  bad() {
    return 'ok';
  }
}

/** Wrong values on purpose: a function's result is only checked at run time. */
function parsePermits(raw: string): number {
  if (raw === 'nan') return NaN;
  if (raw === 'string') return '2' as unknown as number;
  return Number(raw);
}

describe('options that are functions of the request', () => {
  let redis: RedisServer;
  let admin: Redis;
  let app: INestApplication;
  let port: number;
  const logger = new CaptureLogger();

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url })],
      controllers: [TiersController],
    })
    class AppModule implements NestModule {
      configure(consumer: MiddlewareConsumer) {
        // Authentication stands before the guard, as it would in an app.
        consumer
          .apply((req: any, _res: unknown, next: () => void) => {
            req.user = PLANS[String(req.headers.authorization)];
            next();
          })
          .forRoutes('*');
      }
    }
    ({ app, port } = await startApp(AppModule, 'express', logger));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });

  const statuses = async (path: string, token: string, count: number) => {
    const result: number[] = [];
    for (let i = 0; i < count; i++) {
      result.push((await call(port, { path, headers: { authorization: token } })).status);
    }
    return result;
  };

  it('gives two users on two plans their own limits', async () => {
    expect(await statuses('/tiers', 'token-ann', 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(await statuses('/tiers', 'token-bob', 3)).toEqual([200, 200, 429]);
    // Each key lives as long as its plan's period: the async option was applied.
    expect(await admin.pttl('countLimit:~TiersController.tiered:ann')).toBeGreaterThan(55_000);
    expect(await admin.pttl('countLimit:~TiersController.tiered:bob')).toBeGreaterThan(115_000);
  });

  it.each([
    ['-1', -1],
    ['nan', 'NaN'],
    ['string', "'2'"],
  ])(
    'answers 500 for a function that returns %s, logs it, and counts nothing',
    async (q, shown) => {
      await afterStartUpCheck(admin);
      const before = await scriptCalls(admin);
      const reply = await call(port, { path: `/tiers/bad?permits=${q}` });
      expect(reply.status).toBe(500);
      expect(await scriptCalls(admin)).toBe(before);
      expect(
        logger.count(
          'error',
          new RegExp(
            `^@RateLimit on TiersController\\.bad: option 'permits' must be an integer >= 0, got ${shown} \\(resolved for this request: permits = ${shown}\\)$`,
          ),
        ),
      ).toBe(1);
    },
  );

  it('applies a valid resolved value', async () => {
    const path = '/tiers/bad?permits=3';
    const replies = [await call(port, { path }), await call(port, { path })];
    expect(replies.map((reply) => reply.status)).toEqual([200, 429]);
    expect(replies[0].headers['x-ratelimit-remaining']).toBe('2');
  });
});
