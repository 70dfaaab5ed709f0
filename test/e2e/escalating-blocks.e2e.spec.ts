import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { CountLimit, LimiterStore, RateLimiterModule } from '../../src';
import { createTestingStore, ManualClock } from '../../src/testing';
import { useAppOnRedis } from '../helpers/app-on-redis';
import { call, HttpReply, Platform, PLATFORMS } from '../helpers/http';

@Controller('escalate')
class EscalateController {
  /** One request a second; a violation blocks 2 s, the next 4 s. */
  @Get()
  @CountLimit({ limit: 1, period: 1, block: [2, 4] })
  hit() {
    return 'ok';
  }
}

@Controller('escalate')
class RealTimeEscalateController {
  /**
   * One request each half second; a violation blocks 1 s, the next 2 s. The window is shorter
   * than any block: a wait past it is the block's.
   */
  @Get()
  @CountLimit({ limit: 1, period: 0.5, block: [1, 2] })
  hit() {
    return 'ok';
  }
}

const retryAfter = (reply: HttpReply) => [reply.status, reply.headers['retry-after']];

describe.each(PLATFORMS)('block: [1, 2] on Redis, in real time (%s)', (platform: Platform) => {
  const env = useAppOnRedis([RealTimeEscalateController], platform);
  const get = () => call(env.port, { path: '/escalate' });
  /** Polls until the block is over: the first 200 (polling, not a fixed sleep). */
  const untilAllowed = async (timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const reply = await get();
      if (reply.status === 200 || Date.now() > deadline) return reply.status;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  /** How long until allowed again, in ms: past the 500 ms window only if a block held. */
  const blockedFor = async (timeoutMs: number) => {
    const blockedAt = Date.now();
    expect(await untilAllowed(timeoutMs)).toBe(200);
    return Date.now() - blockedAt;
  };

  it('answers Retry-After 1, then 2, then 1 again after 2 s of quiet', async () => {
    expect((await get()).status).toBe(200);
    expect(retryAfter(await get())).toEqual([429, '1']);
    expect(await blockedFor(3_000)).toBeGreaterThanOrEqual(700);
    expect(retryAfter(await get())).toEqual([429, '2']);
    // The level lives in the limit's own key: one key, nothing beside it.
    expect(await env.admin.keys('*')).toEqual(['countLimit:~RealTimeEscalateController.hit']);
    expect(await blockedFor(4_000)).toBeGreaterThanOrEqual(1_500);
    // Quiet for the last step's length (2 s) since the block ended.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    expect((await get()).status).toBe(200);
    expect(retryAfter(await get())).toEqual([429, '1']);
    expect(await blockedFor(3_000)).toBeGreaterThanOrEqual(700);
  }, 30_000);
});

describe.each(PLATFORMS)(
  'block: [2, 4] in memory, on a manual clock (%s)',
  (platform: Platform) => {
    const clock = new ManualClock();
    let app: INestApplication;
    let port: number;
    beforeAll(async () => {
      @Module({ imports: [RateLimiterModule.forRoot()], controllers: [EscalateController] })
      class AppModule {}
      const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
        .overrideProvider(LimiterStore)
        .useValue(createTestingStore({ clock }))
        .compile();
      app =
        platform === 'fastify'
          ? moduleRef.createNestApplication(new FastifyAdapter(), { logger: false })
          : moduleRef.createNestApplication({ logger: false });
      await app.listen(0, '127.0.0.1');
      port = app.getHttpServer().address().port;
    });
    afterAll(() => app.close());
    const get = () => call(port, { path: '/escalate' });

    it('answers Retry-After 2, then 4 (4 for each further one), then 2 again after 4 s of quiet', async () => {
      const trace: unknown[] = [];
      const step = async (advanceMs: number) => {
        clock.advance(advanceMs);
        trace.push(retryAfter(await get()));
      };
      await step(0);
      await step(10); // violation: 2 s
      await step(1_000); // blocked: 1 s left
      await step(1_000); // the block is over
      await step(10); // violation: 4 s
      await step(4_000); // over
      await step(10); // violation: 4 s again
      await step(4_000); // over (the block ended at +4 s)
      await step(3_900); // 3.9 s later: not quiet long enough
      await step(10); // violation: 4 s
      await step(4_000 + 4_000); // the block's 4 s, then 4 s of quiet
      await step(10); // violation: 2 s
      expect(trace).toEqual([
        [200, undefined],
        [429, '2'],
        [429, '1'],
        [200, undefined],
        [429, '4'],
        [200, undefined],
        [429, '4'],
        [200, undefined],
        [200, undefined],
        [429, '4'],
        [200, undefined],
        [429, '2'],
      ]);
    });
  },
);
