import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { MockUpstream, runCallers, startMockUpstream } from '../helpers/upstream-fleet';

/**
 * Caller processes on one Redis calling the mock upstream (a token bucket that answers 429)
 * through one upstream budget. The rates are low so that a loaded 2-core machine keeps up,
 * and the bounds leave room for its lateness; the exact figures are in the bench.
 * UPSTREAM_CONTROL=no-limiter (plain fetch) or no-learning (learn: false) runs the same
 * scenarios without the feature, to see them fail.
 */
const CONTROL = process.env.UPSTREAM_CONTROL;
const RATE = 20;
const CAPACITY = 5;
/** Loading the apps from source takes long on a busy machine. */
const TEST_TIMEOUT_MS = 400_000;

let redis: RedisServer;
let mock: MockUpstream;
beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => {
  await redis?.stop();
});
beforeEach(async () => {
  mock = await startMockUpstream({ RATE: String(RATE), CAPACITY: String(CAPACITY) });
  await redis.client().flushall();
}, 120_000);
afterEach(async () => {
  await mock?.stop();
});

function callerEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: redis.url,
    UPSTREAM_URL: mock.url,
    RATE: String(RATE),
    CAPACITY: String(CAPACITY),
    CONCURRENCY: '8',
    ...(CONTROL === 'no-limiter' ? { NO_LIMITER: 'true' } : {}),
    ...(CONTROL === 'no-learning' ? { LEARN: 'false' } : {}),
    ...extra,
  };
}

type Arrival = [at: number, status: number, tenant: string];
const within = (log: Arrival[], from: number, to: number) =>
  log.filter(([at]) => at >= from && at < to);
const counts = (log: Arrival[]) => ({
  ok: log.filter(([, status]) => status === 200).length,
  refused: log.filter(([, status]) => status === 429).length,
});

/** With UPSTREAM_REPORT set, the figures a scenario measured (for the record, not the check). */
const report = (scenario: string, figures: object) => {
  if (process.env.UPSTREAM_REPORT) process.stdout.write(`${scenario} ${JSON.stringify(figures)}\n`);
};

/** Calls `step` at `atMs` after the callers' start. */
function after(startAt: number, atMs: number, step: () => Promise<void>): Promise<void> {
  return new Promise((resolve, reject) =>
    setTimeout(() => step().then(resolve, reject), startAt + atMs - Date.now()),
  );
}

describe('an upstream budget shared by caller processes on one Redis', () => {
  it(
    'keeps 3 processes of 8 callers within the budget, and one Retry-After pauses them all',
    async () => {
      let startAt = 0;
      let control: Promise<void> = Promise.resolve();
      const results = await runCallers(
        [callerEnv(), callerEnv(), callerEnv()].map((env) => ({ ...env, DURATION_MS: '8000' })),
        (start) => {
          startAt = start;
          control = after(start, 3000, () => mock.control({ retryAfter: 2 }));
        },
      );
      await control;
      const log = (await mock.log(startAt)) as Arrival[];
      expect(results.every((result) => result.busy === 0)).toBe(true);
      // Before the pause: the budget's rate, and (almost) no 429.
      const before = counts(within(log, startAt + 500, startAt + 3000));
      expect(before.refused).toBeLessThanOrEqual(Math.ceil(0.05 * (before.ok + before.refused)));
      expect(before.ok).toBeGreaterThanOrEqual(0.75 * RATE * 2.5);
      // The one 429 with Retry-After: 2; after the calls already on the wire, none until it ends.
      const pausedAt = log.find(([at, status]) => status === 429 && at >= startAt + 2900)![0];
      const during = within(log, pausedAt + 500, pausedAt + 1900);
      const resumedAt = log.find(([at]) => at >= pausedAt + 500)?.[0];
      report('budget+pause', {
        before,
        during: during.length,
        resumedAfterMs: resumedAt! - pausedAt,
      });
      expect(during).toEqual([]);
      const resumed = log.find(([at]) => at >= pausedAt + 1900);
      expect(resumed).toBeDefined();
      expect(resumed![0]).toBeLessThan(pausedAt + 3500);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'follows an upstream whose limit drops silently to half (AIMD on bare 429s)',
    async () => {
      let startAt = 0;
      let control: Promise<void> = Promise.resolve();
      await runCallers(
        [callerEnv(), callerEnv()].map((env) => ({ ...env, DURATION_MS: '16000' })),
        (start) => {
          startAt = start;
          control = after(start, 2000, () => mock.control({ rate: RATE / 2 }));
        },
      );
      await control;
      const log = (await mock.log(startAt)) as Arrival[];
      // From 8 s after the drop: near the new limit, few 429s.
      const settled = counts(within(log, startAt + 10_000, startAt + 16_000));
      report('silent drop', settled);
      expect(settled.refused).toBeLessThanOrEqual(0.08 * (settled.ok + settled.refused));
      expect(settled.ok).toBeGreaterThanOrEqual(0.8 * (RATE / 2) * 6);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'takes the new limit from X-RateLimit headers within 2 s of the drop',
    async () => {
      await mock.control({ headers: 'x' });
      let startAt = 0;
      let control: Promise<void> = Promise.resolve();
      await runCallers(
        [callerEnv(), callerEnv()].map((env) => ({ ...env, DURATION_MS: '8000' })),
        (start) => {
          startAt = start;
          control = after(start, 2000, () => mock.control({ rate: RATE / 2 }));
        },
      );
      await control;
      const log = (await mock.log(startAt)) as Arrival[];
      const settled = counts(within(log, startAt + 4000, startAt + 8000));
      report('header drop', settled);
      expect(settled.refused).toBeLessThanOrEqual(Math.ceil(0.03 * (settled.ok + settled.refused)));
      expect(settled.ok).toBeGreaterThanOrEqual(0.8 * (RATE / 2) * 4);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'shares a saturated budget by weight among tenants on different processes',
    async () => {
      let startAt = 0;
      const tenants = [
        { TENANT: 'one', WEIGHT: '1' },
        { TENANT: 'two', WEIGHT: CONTROL === 'no-weights' ? '1' : '2' },
        { TENANT: 'five', WEIGHT: CONTROL === 'no-weights' ? '1' : '5' },
      ];
      await runCallers(
        tenants.map((tenant) => ({ ...callerEnv(), ...tenant, DURATION_MS: '10000' })),
        (start) => (startAt = start),
      );
      const log = within((await mock.log(startAt)) as Arrival[], startAt + 3000, startAt + 10_000);
      const served = log.filter(([, status]) => status === 200);
      const share = (tenant: string) =>
        served.filter(([, , name]) => name === tenant).length / served.length;
      report('shares', { one: share('one'), two: share('two'), five: share('five') });
      expect(Math.abs(share('one') - 1 / 8)).toBeLessThanOrEqual(0.3 / 8);
      expect(Math.abs(share('two') - 2 / 8)).toBeLessThanOrEqual(0.3 * (2 / 8));
      expect(Math.abs(share('five') - 5 / 8)).toBeLessThanOrEqual(0.3 * (5 / 8) * 0.5);
    },
    TEST_TIMEOUT_MS,
  );
});
