import Redis from 'ioredis';
import { burst } from '../helpers/burst';
import { ChildApp, startChildApp } from '../helpers/child-app';
import { scriptCalls } from '../helpers/command-stats';
import { call } from '../helpers/http';
import { Lateness, watchLateness } from '../helpers/lateness';
import { RedisServer, startRedisServer, stopProcess } from '../helpers/redis-server';

/**
 * A leased key (`@CountLimit({ lease })`) under the faults that used to wedge it open: a
 * burst far above the limit, Redis frozen (SIGSTOP) with requests waiting, the app's own
 * event loop stalled with requests waiting. Each app runs in a process of its own, with the
 * default storeTimeout (200 ms) and onStoreError 'allow', so a store error would admit.
 * After each fault the key must decide exactly again once its lease has ended (one lease
 * lifetime, 1 s), with no engine call left running in a loop, and SIGTERM must still end
 * the app promptly.
 */
const LEASE_LIFETIME_MS = 1000;
/** What a child process may run late on a busy machine, beyond this process's lateness. */
const CHILD_MARGIN_MS = 1000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function storeErrors(app: ChildApp): Promise<number> {
  return Number((await call(app.port, { path: '/store-errors' })).body);
}

describe('a leased key under faults (limit 300, lease 20)', () => {
  let redis: RedisServer;
  let admin: Redis;
  let app: ChildApp;
  let lateness: Lateness;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    app = await startChildApp('lease-burst-app.ts', { REDIS_URL: redis.url }, 90_000);
    lateness = watchLateness();
  }, 120_000);
  afterAll(async () => {
    lateness?.stop();
    // A wedged app would not end on SIGTERM (the test above says whether it does).
    await stopProcess(app?.process, 'SIGKILL');
    await redis?.stop();
  });

  /** Waits until the app's leases of the key have ended and given back what they kept. */
  const afterLeaseEnds = () => sleep(LEASE_LIFETIME_MS + CHILD_MARGIN_MS + lateness.maxMs());

  /**
   * The key decides exactly: a burst of 400 admits what Redis says is left of 300, and no
   * request meets a store error.
   */
  async function decidesExactly(round: string): Promise<void> {
    const counted = Number((await admin.get(`countLimit:lease:${round}`)) ?? 0);
    const errorsBefore = await storeErrors(app);
    const statuses = await burst(app.port, `/lease?round=${round}`, 400);
    expect({ round, statuses, storeErrors: (await storeErrors(app)) - errorsBefore }).toEqual({
      round,
      statuses: { 200: 300 - counted, 429: 100 + counted },
      storeErrors: 0,
    });
  }

  /** Engine calls Redis runs in a second of an idle app: none, once its leases have ended. */
  async function idleEngineCalls(): Promise<number> {
    await afterLeaseEnds();
    const before = await scriptCalls(admin);
    await sleep(1000);
    return (await scriptCalls(admin)) - before;
  }

  it('a burst of 900 admits exactly 300, twice, with no store error', async () => {
    for (const round of ['burst-1', 'burst-2']) {
      const errorsBefore = await storeErrors(app);
      const statuses = await burst(app.port, `/lease?round=${round}`, 900);
      expect({ round, statuses, storeErrors: (await storeErrors(app)) - errorsBefore }).toEqual({
        round,
        statuses: { 200: 300, 429: 600 },
        storeErrors: 0,
      });
    }
    expect(await idleEngineCalls()).toBe(0);
  }, 60_000);

  it('after Redis is frozen for 1 s with 60 requests waiting, the key decides exactly again and nothing loops', async () => {
    const round = 'frozen';
    for (let i = 0; i < 5; i++) {
      expect((await call(app.port, { path: `/lease?round=${round}` })).status).toBe(200);
    }
    redis.freeze();
    const waiting = Array.from({ length: 60 }, () =>
      call(app.port, { path: `/lease?round=${round}` }),
    );
    await sleep(1000);
    redis.thaw();
    await Promise.all(waiting);
    expect(await idleEngineCalls()).toBe(0);
    await decidesExactly(round);
  }, 60_000);

  it.each([1, 2, 3])(
    'after a 400 ms stall of the app with 60 requests waiting (%i), the key decides exactly again',
    async (n) => {
      const round = `stall-${n}`;
      const stall = call(app.port, { path: '/stall?ms=400' });
      await Promise.all([
        ...Array.from({ length: 60 }, () => call(app.port, { path: `/lease?round=${round}` })),
        stall,
      ]);
      expect(await idleEngineCalls()).toBe(0);
      await decidesExactly(round);
    },
    60_000,
  );

  it('SIGTERM ends the app within 2 s while it holds leased permits', async () => {
    const round = 'closing';
    for (let i = 0; i < 5; i++) {
      expect((await call(app.port, { path: `/lease?round=${round}` })).status).toBe(200);
    }
    expect(await admin.get(`countLimit:lease:${round}`)).toBe('20');
    const startedMs = performance.now();
    const exited = new Promise<number>((resolve) =>
      app.process.once('exit', () => resolve(performance.now() - startedMs)),
    );
    app.process.kill('SIGTERM');
    const elapsed = await Promise.race([exited, sleep(8000).then(() => Infinity)]);
    expect(elapsed).toBeLessThanOrEqual(2000 + lateness.maxMs());
    // What the lease did not hand out went back as the app closed.
    expect(await admin.get(`countLimit:lease:${round}`)).toBe('5');
  }, 60_000);
});

describe('two apps leasing one key (limit 1,000, lease 100)', () => {
  let redis: RedisServer;
  let apps: ChildApp[];

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { REDIS_URL: redis.url, LIMIT: '1000', LEASE: '100' };
    apps = await Promise.all([1, 2].map(() => startChildApp('lease-burst-app.ts', env, 90_000)));
  }, 120_000);
  afterAll(async () => {
    await Promise.all((apps ?? []).map((app) => stopProcess(app.process, 'SIGKILL')));
    await redis?.stop();
  });

  it('600 requests at once on each admit exactly 1,000 in all, with no store error', async () => {
    const results = await Promise.all(apps.map((app) => burst(app.port, '/lease?round=two', 600)));
    const admitted = results.reduce((sum, statuses) => sum + (statuses[200] ?? 0), 0);
    const errors = await Promise.all(apps.map(storeErrors));
    expect({ admitted, errors }).toEqual({ admitted: 1000, errors: [0, 0] });
  }, 60_000);
});
