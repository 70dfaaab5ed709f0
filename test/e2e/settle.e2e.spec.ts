import { BadRequestException, Controller, Get, Module, Query, Req, Res } from '@nestjs/common';
import { RateLimit, RateLimiterFactory, RateLimiterModule, SettleFunction } from '../../src';
import { CaptureLogger } from '../helpers/capture-logger';
import { eventually } from '../helpers/eventually';
import { hangUp } from '../helpers/hang-up';
import { call, PLATFORMS, startApp } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

// A rate that is a power of two keeps rate * burst exact: 30 permits, one back every 1024 s.
const RATE = 1 / 1024;
const small = { rate: RATE, burst: 30 * 1024 };
const large = { rate: RATE, burst: 100 * 1024 };

/** The cost the handler reports: the tokens it used. */
const usedTokens: SettleFunction = (_ctx, { result }) => (result as { used: number }).used;

@Controller('llm')
class LlmController {
  @Get('complete')
  @RateLimit({
    ...small,
    key: 'tokens:#{query.user}',
    name: 'burst',
    permits: 10,
    settle: usedTokens,
  })
  @RateLimit({
    ...large,
    key: 'daily:#{query.user}',
    name: 'daily',
    permits: 10,
    settle: usedTokens,
  })
  complete(@Query('used') used: string) {
    return { used: used === 'bad' ? -1 : Number(used) };
  }

  /** Answers 20 ms after returning, passport-style; the cost is known only then. */
  @Get('late')
  @RateLimit({
    ...small,
    key: 'late:#{query.user}',
    permits: 10,
    settle: (ctx) => ctx.request.used ?? 10,
  })
  late(@Req() request: any, @Res() response: any) {
    setTimeout(() => {
      request.used = 3;
      if (typeof response.json === 'function') response.json({ used: 3 });
      else response.send({ used: 3 });
    }, 20);
  }

  /** Only successes count: a failure costs nothing, a success what it used. */
  @Get('counted')
  @RateLimit({
    ...small,
    key: 'counted:#{query.user}',
    permits: 10,
    count: 'successes',
    settle: usedTokens,
  })
  counted(@Query('used') used: string) {
    if (used === 'fail') throw new BadRequestException();
    return { used: Number(used) };
  }

  @Get('fails')
  @RateLimit({
    key: 'fails',
    rate: RATE,
    burst: 30 * 1024,
    permits: 10,
    settle: (_ctx, { error }) => ((error as Error)?.message === 'the model is down' ? 2 : 10),
  })
  fails(): { used: number } {
    throw new Error('the model is down');
  }
}

describe.each(PLATFORMS)('settle: the real cost after the handler, on %s', (platform) => {
  let redis: RedisServer;
  let port: number;
  let app: Awaited<ReturnType<typeof startApp>>['app'];
  const logger = new CaptureLogger();
  let user = 0;
  const peek = async (options: { key: string; rate: number; burst: number }) =>
    (await app.get(RateLimiterFactory).rateLimiter(options).peek()).remaining;
  /** What the user's two limits have left. */
  const remaining = async () => [
    await peek({ ...small, key: `tokens:${user}` }),
    await peek({ ...large, key: `daily:${user}` }),
  ];
  const complete = (used: number | string) =>
    call(port, { path: `/llm/complete?used=${used}&user=${user}` });

  beforeAll(async () => {
    redis = await startRedisServer();
    @Module({
      imports: [RateLimiterModule.forRoot({ redis: redis.url })],
      controllers: [LlmController],
    })
    class AppModule {}
    ({ app, port } = await startApp(AppModule, platform, logger));
  });
  afterAll(async () => {
    await app?.close();
    await redis?.stop();
  });
  beforeEach(() => {
    user++;
    logger.lines.length = 0;
  });

  it('reserve 10, real cost 1 four times then 25: the next request is denied on a limit of 30', async () => {
    const statuses: number[] = [];
    for (const used of [1, 1, 1, 1, 25]) statuses.push((await complete(used)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(await remaining()).toEqual([1, 71]);
    const denied = await complete(1);
    expect(denied.status).toBe(429);
    // All or nothing: the denied request took nothing from the daily limit either.
    expect(await remaining()).toEqual([1, 71]);
  });

  it('a cost above what is left leaves the key in debt until the refill repays it', async () => {
    expect((await complete(45)).status).toBe(200);
    expect((await remaining())[0]).toBe(0);
    const denied = await complete(1);
    expect(denied.status).toBe(429);
    // 15 permits of debt and the 10 this request reserves, one every 1024 s.
    expect(denied.headers['retry-after']).toBe(String(25 * 1024));
    expect((await remaining())[1]).toBe(55);
  });

  it('an invalid cost answers 500 with one log line naming the limit, and corrects nothing', async () => {
    const reply = await complete('bad');
    expect(reply.status).toBe(500);
    expect(await remaining()).toEqual([20, 90]);
    const lines = logger.lines.filter((line) => /settle must return/.test(line.message));
    expect(lines.map((line) => line.message)).toEqual([
      '@RateLimit on LlmController.complete: settle must return an integer >= 0, got -1',
    ]);
  });

  it('a handler that throws is settled with its error', async () => {
    expect((await call(port, { path: '/llm/fails' })).status).toBe(500);
    expect(await peek({ ...small, key: 'fails' })).toBe(28);
  });

  it('an @Res() handler settles when it answers, whenever its client left', async () => {
    const late = () => peek({ ...small, key: `late:${user}` });
    expect((await call(port, { path: `/llm/late?user=${user}` })).body).toEqual({ used: 3 });
    expect(await eventually(() => late(), 27)).toBe(27);
    await hangUp(port, `/llm/late?user=${user}`, 5);
    expect(await eventually(() => late(), 24)).toBe(24);
  });

  it("with count: 'successes', a failure costs nothing and a success what it used", async () => {
    const counted = () => peek({ ...small, key: `counted:${user}` });
    expect((await call(port, { path: `/llm/counted?used=fail&user=${user}` })).status).toBe(400);
    expect(await counted()).toBe(30);
    expect((await call(port, { path: `/llm/counted?used=4&user=${user}` })).status).toBe(200);
    expect(await counted()).toBe(26);
  });
});
