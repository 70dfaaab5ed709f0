import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { CountLimit, RateLimiterHealthIndicator, RateLimiterModule } from '../../src';
import { eventually } from '../helpers/eventually';
import { healthOf } from '../helpers/health-of';
import { call, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

@Controller()
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly rateLimiter: RateLimiterHealthIndicator,
  ) {}

  @Get('health')
  @HealthCheck()
  check() {
    return this.health.check([() => this.rateLimiter.isHealthy('rateLimiter')]);
  }

  @Get('limited')
  @CountLimit({ limit: 100, period: 60 })
  limited() {
    return 'ok';
  }
}

describe('RateLimiterHealthIndicator through terminus’s HealthCheckService', () => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;

  beforeAll(async () => {
    redis = await startRedisServer();
    @Module({
      imports: [
        RateLimiterModule.forRoot({ redis: redis.url, storeTimeout: 200 }),
        TerminusModule.forRoot({ logger: false }),
      ],
      controllers: [HealthController],
    })
    class HealthModule {}
    ({ app, port } = await startApp(HealthModule, 'express'));
  });
  afterAll(async () => {
    await app.close();
    await redis.stop();
  });

  it('up while Redis answers, down with the cause and the breaker while it does not, up again', async () => {
    const up = await call(port, { path: '/health' });
    expect([up.status, up.body]).toEqual([
      200,
      {
        status: 'ok',
        info: { rateLimiter: { status: 'up', breaker: 'closed' } },
        error: {},
        details: { rateLimiter: { status: 'up', breaker: 'closed' } },
      },
    ]);

    await redis.kill();
    const status = () => call(port, { path: '/health' }).then((reply) => reply.status);
    expect(await eventually(status, 503)).toBe(503);
    const refused = `connect ECONNREFUSED 127.0.0.1:${redis.port}`;
    // The first words, before a reconnection is refused: the connection was closed.
    const message = () =>
      call(port, { path: '/health' }).then((reply) => reply.body.error.rateLimiter.message);
    expect(
      await eventually(message, `Redis at 127.0.0.1:${redis.port} is unreachable (${refused})`),
    ).toBe(`Redis at 127.0.0.1:${redis.port} is unreachable (${refused})`);
    const down = await call(port, { path: '/health' });
    const rateLimiter = {
      status: 'down',
      message: `Redis at 127.0.0.1:${redis.port} is unreachable (${refused})`,
      breaker: 'closed',
    };
    expect(down.body).toEqual({
      status: 'error',
      info: {},
      error: { rateLimiter },
      details: { rateLimiter },
    });

    await redis.start();
    expect(await eventually(status, 200, 5_000)).toBe(200);
  });

  it('a frozen Redis is down once the check times out; the breaker opens after 3 timeouts', async () => {
    const indicator = app.get(RateLimiterHealthIndicator);
    const down = (breaker: string) => ({
      rateLimiter: { status: 'down', message: 'no answer within storeTimeout (200 ms)', breaker },
    });
    redis.freeze();
    try {
      expect(await healthOf(indicator, 'rateLimiter')).toEqual(down('closed'));
      for (let i = 0; i < 3; i++) {
        expect((await call(port, { path: '/limited' })).status).toBe(200); // 'allow'
      }
      expect(await healthOf(indicator, 'rateLimiter')).toEqual(down('open'));
    } finally {
      redis.thaw();
    }
    // The decisions held by the frozen Redis are answered once it resumes: the breaker closes.
    const state = () =>
      healthOf(indicator, 'rateLimiter').then(({ rateLimiter }) => rateLimiter.breaker);
    expect(await eventually(state, 'closed')).toBe('closed');
    expect(await healthOf(indicator, 'rateLimiter')).toEqual({
      rateLimiter: { status: 'up', breaker: 'closed' },
    });
  });
});
