import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { CountLimit, RateLimiterModule, RateLimitEvent, StoreErrorPolicy } from '../../src';
import { PROBE_INTERVAL_MS } from '../../src/stores/failure/circuit-breaker';
import { CaptureLogger } from '../helpers/capture-logger';
import { call, startApp } from '../helpers/http';
import { Lateness, watchLateness } from '../helpers/lateness';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const STORE_TIMEOUT_MS = 200;
/**
 * The loop turn that judges a timeout and the loopback HTTP round trips of 20 requests at once;
 * the loop's measured lateness comes on top. Far below the 2.5 s stall.
 */
const MARGIN_MS = 100;
const KEY = 'countLimit:~FrozenController.counted';

@Controller()
class FrozenController {
  @Get('counted')
  @CountLimit({ limit: 1000, period: 60 })
  counted() {
    return 'ok';
  }
}

function appModule(redis: string, onStoreError: StoreErrorPolicy, events: RateLimitEvent[]) {
  const onDecision = (event: RateLimitEvent) => events.push(event);
  const options = { redis, onStoreError, storeTimeout: STORE_TIMEOUT_MS, onDecision };
  @Module({
    imports: [RateLimiterModule.forRoot(options)],
    controllers: [FrozenController],
  })
  class FrozenModule {}
  return FrozenModule;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
const PAUSE_MS = 2500;
let pausedUntil = 0;

/** A Redis that stops answering while keeping its connections: SIGSTOP, or CLIENT PAUSE. */
interface Stall {
  name: string;
  begin(redis: RedisServer): Promise<void>;
  end(redis: RedisServer): Promise<void>;
}

const stalls: Stall[] = [
  {
    name: 'SIGSTOP / SIGCONT',
    begin: async (redis) => redis.freeze(),
    end: async (redis) => redis.thaw(),
  },
  {
    name: 'CLIENT PAUSE',
    // Every client's commands wait until the pause expires; the stall below lasts < 2 s.
    begin: async (redis) => {
      const admin = redis.client();
      await admin.call('CLIENT', 'PAUSE', String(PAUSE_MS), 'ALL');
      pausedUntil = Date.now() + PAUSE_MS;
      admin.disconnect();
    },
    end: () => sleep(pausedUntil - Date.now()),
  },
];

const expected: Record<StoreErrorPolicy, number> = { allow: 200, deny: 503, fallback: 200 };

describe.each(stalls)('a Redis that stops answering ($name)', (stall) => {
  describe.each<StoreErrorPolicy>(['allow', 'deny', 'fallback'])('onStoreError %s', (policy) => {
    let redis: RedisServer;
    let app: INestApplication;
    let port: number;
    const logger = new CaptureLogger();
    const events: RateLimitEvent[] = [];
    /** Decisions that waited for Redis and timed out, not those refused without asking. */
    const timedOut = () =>
      events.filter((event) => /no answer within storeTimeout/.test(event.error?.message ?? ''))
        .length;

    beforeAll(async () => {
      redis = await startRedisServer();
      ({ app, port } = await startApp(appModule(redis.url, policy, events), 'express', logger));
    });
    afterAll(async () => {
      redis.thaw();
      await app.close();
      await redis.stop();
    });

    it("answers within storeTimeout + 100 ms (and the loop's lateness), stops waiting after a few timeouts, and Redis counts only what it decided", async () => {
      for (let i = 0; i < 5; i++) expect((await call(port, { path: '/counted' })).status).toBe(200);
      const admin = redis.client();
      expect(await admin.get(KEY)).toBe('5');

      await stall.begin(redis);
      const lateness: Lateness = watchLateness();
      const wave = await Promise.all(
        Array.from({ length: 20 }, () => call(port, { path: '/counted' })),
      );
      expect(wave.map((reply) => reply.status)).toEqual(Array(20).fill(expected[policy]));
      // A timeout is judged one loop turn after its timer, once replies already in the socket
      // are read (a busy app is not a down Redis); a timer cannot fire while the process waits
      // for a core, so the loop's measured lateness is added for each. A request that waited for Redis
      // would take the stall's 2 s and more.
      expect(Math.max(...wave.map((reply) => reply.elapsedMs))).toBeLessThan(
        STORE_TIMEOUT_MS + MARGIN_MS + 2 * lateness.maxMs(),
      );
      // The store now counts as down: requests no longer wait, but for one probe now and then.
      const later: number[] = [];
      const timedOutBefore = timedOut();
      const laterFrom = Date.now();
      for (let i = 0; i < 20; i++) {
        const reply = await call(port, { path: '/counted' });
        expect(reply.status).toBe(expected[policy]);
        later.push(reply.elapsedMs);
      }
      lateness.stop();
      expect(Math.max(...later)).toBeLessThan(STORE_TIMEOUT_MS + MARGIN_MS + 2 * lateness.maxMs());
      // Counted by what the store did, not by how long a request took on a starved machine: one
      // probe per PROBE_INTERVAL_MS at most (every one of the 20 would time out were it closed).
      const probes = 1 + Math.floor((Date.now() - laterFrom) / PROBE_INTERVAL_MS);
      expect(timedOut() - timedOutBefore).toBeLessThanOrEqual(Math.min(probes, 19));
      expect(logger.count('warn', /store unavailable/)).toBe(1);
      await sleep(STORE_TIMEOUT_MS); // every decision sent so far is now past its deadline

      await stall.end(redis);
      const resumedAt = Date.now();
      // What Redis ran on resuming was skipped: nobody was waiting for it.
      await sleep(100);
      expect(await admin.get(KEY)).toBe('5');
      // Exact again within 1 s: a request counts once, in Redis.
      let counted = 5;
      while (counted === 5) {
        expect(Date.now() - resumedAt).toBeLessThan(1000);
        await call(port, { path: '/counted' });
        counted = Number(await admin.get(KEY));
        if (counted === 5) await sleep(20);
      }
      expect(counted).toBe(6);
      for (let i = 0; i < 3; i++) expect((await call(port, { path: '/counted' })).status).toBe(200);
      expect(await admin.get(KEY)).toBe('9');
      expect(logger.count('log', /store is back/)).toBe(1);
    });
  });
});
