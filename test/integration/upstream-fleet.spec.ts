import { scriptCalls } from '../helpers/command-stats';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import {
  CallerFleet,
  MockUpstream,
  startCallers,
  startMockUpstream,
} from '../helpers/upstream-fleet';

/**
 * Caller processes on one Redis calling the mock upstream (a token bucket that answers 429)
 * through one upstream budget. The processes and the mock start once and serve every run
 * (loading the apps from source is most of the time on a busy machine); each run starts
 * from an empty Redis and a reset mock. The rates are low so that a loaded 2-core machine
 * keeps up, and the bounds leave room for its lateness; the exact figures are in the bench.
 * UPSTREAM_CONTROL=no-limiter (plain fetch), no-learning (learn: false) or no-weights (every
 * tenant of weight 1) runs the same scenarios without the feature, to see them fail.
 */
const CONTROL = process.env.UPSTREAM_CONTROL;
const RATE = 20;
const CAPACITY = 5;
/** Loading the apps from source takes long on a busy machine. */
const START_TIMEOUT_MS = 180_000;
const TEST_TIMEOUT_MS = 60_000;
/** One tenant a process, of weights 1, 2 and 5: a saturated budget is shared 1 : 2 : 5. */
const TENANTS = [
  { TENANT: 'one', WEIGHT: '1' },
  { TENANT: 'two', WEIGHT: CONTROL === 'no-weights' ? '1' : '2' },
  { TENANT: 'five', WEIGHT: CONTROL === 'no-weights' ? '1' : '5' },
];

let redis: RedisServer;
let mock: MockUpstream;
let fleet: CallerFleet;
beforeAll(async () => {
  redis = await startRedisServer();
  mock = await startMockUpstream({ RATE: String(RATE), CAPACITY: String(CAPACITY) });
  fleet = await startCallers(TENANTS.map((tenant) => ({ ...callerEnv(), ...tenant })));
}, START_TIMEOUT_MS);
afterAll(async () => {
  await fleet?.stop();
  await mock?.stop();
  await redis?.stop();
});
beforeEach(async () => {
  await mock.control({ reset: 1 });
  await redis.client().flushall();
  await redis.client().config('RESETSTAT');
});

function callerEnv(): Record<string, string> {
  return {
    REDIS_URL: redis.url,
    UPSTREAM_URL: mock.url,
    RATE: String(RATE),
    CAPACITY: String(CAPACITY),
    CONCURRENCY: '8',
    ...(CONTROL === 'no-limiter' ? { NO_LIMITER: 'true' } : {}),
    ...(CONTROL === 'no-learning' ? { LEARN: 'false' } : {}),
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

/** One run of `durationMs`, with `step` on the mock `atMs` after the start; the mock's log. */
async function runWith(
  durationMs: number,
  atMs?: number,
  step?: () => Promise<void>,
): Promise<{ startAt: number; log: Arrival[]; busy: number }> {
  let startAt = 0;
  let stepped: Promise<void> = Promise.resolve();
  const results = await fleet.run(durationMs, (start) => {
    startAt = start;
    if (step) {
      stepped = new Promise((resolve, reject) =>
        setTimeout(() => step().then(resolve, reject), start + atMs! - Date.now()),
      );
    }
  });
  await stepped;
  const log = (await mock.log(startAt)) as Arrival[];
  return { startAt, log, busy: results.reduce((sum, result) => sum + result.busy, 0) };
}

describe('an upstream budget shared by caller processes on one Redis', () => {
  it(
    'keeps 3 processes of 8 callers within the budget, and one Retry-After pauses them all',
    async () => {
      const { startAt, log, busy } = await runWith(4500, 1500, () =>
        mock.control({ retryAfter: 2 }),
      );
      expect(busy).toBe(0);
      // Before the pause: the budget's rate, and (almost) no 429.
      const before = counts(within(log, startAt + 500, startAt + 1500));
      expect(before.refused).toBeLessThanOrEqual(Math.ceil(0.05 * (before.ok + before.refused)));
      expect(before.ok).toBeGreaterThanOrEqual(0.75 * RATE * 1);
      // The one 429 with Retry-After: 2; after the calls already on the wire, none until it ends.
      const pausedAt = log.find(([at, status]) => status === 429 && at >= startAt + 1400)![0];
      const during = within(log, pausedAt + 500, pausedAt + 1900);
      const resumed = log.find(([at]) => at >= pausedAt + 1900);
      report('budget+pause', {
        before,
        during: during.length,
        resumedAfterMs: resumed ? resumed[0] - pausedAt : null,
      });
      expect(during).toEqual([]);
      expect(resumed).toBeDefined();
      expect(resumed![0]).toBeLessThan(pausedAt + 3500);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'shares a saturated budget by weight among tenants on different processes, in one script call a start at most',
    async () => {
      const { startAt, log } = await runWith(6000);
      const served = within(log, startAt + 1500, startAt + 6000).filter(
        ([, status]) => status === 200,
      );
      const share = (tenant: string) =>
        served.filter(([, , name]) => name === tenant).length / served.length;
      // Every script call the run made (the books' asks and the learning reports) against the
      // calls that reached the upstream: callers that polled would make several a start.
      const calls = await scriptCalls(redis.client());
      report('shares', {
        one: share('one'),
        two: share('two'),
        five: share('five'),
        scriptCallsPerStart: calls / log.length,
      });
      expect(Math.abs(share('one') - 1 / 8)).toBeLessThanOrEqual(0.3 / 8);
      expect(Math.abs(share('two') - 2 / 8)).toBeLessThanOrEqual(0.3 * (2 / 8));
      expect(Math.abs(share('five') - 5 / 8)).toBeLessThanOrEqual(0.3 * (5 / 8) * 0.5);
      if (CONTROL !== 'no-limiter') expect(calls).toBeLessThanOrEqual(1.5 * log.length);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'follows an upstream whose limit drops silently to half (AIMD on bare 429s)',
    async () => {
      const { startAt, log } = await runWith(8000, 1000, () => mock.control({ rate: RATE / 2 }));
      // From 3.5 s after the drop: near the new limit, few 429s.
      const settled = counts(within(log, startAt + 4500, startAt + 8000));
      report('silent drop', settled);
      expect(settled.refused).toBeLessThanOrEqual(0.08 * (settled.ok + settled.refused));
      expect(settled.ok).toBeGreaterThanOrEqual(0.8 * (RATE / 2) * 3.5);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'takes the new limit from X-RateLimit headers within 2 s of the drop',
    async () => {
      await mock.control({ headers: 'x' });
      const { startAt, log } = await runWith(5000, 1000, () => mock.control({ rate: RATE / 2 }));
      const settled = counts(within(log, startAt + 3000, startAt + 5000));
      report('header drop', settled);
      expect(settled.refused).toBeLessThanOrEqual(Math.ceil(0.03 * (settled.ok + settled.refused)));
      expect(settled.ok).toBeGreaterThanOrEqual(0.8 * (RATE / 2) * 2);
    },
    TEST_TIMEOUT_MS,
  );
});
