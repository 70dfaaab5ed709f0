import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { burst } from '../helpers/burst';
import { ChildApp, startChildApp } from '../helpers/child-app';
import { call } from '../helpers/http';
import { RedisServer, startRedisServer, stopProcess } from '../helpers/redis-server';
import { RedisStalls, watchRedisStalls } from '../helpers/redis-stalls';

/**
 * A healthy Redis, and apps pinned to one CPU (every thread of each on CPU 0, as `taskset -c
 * 0` starts it) that a busy process shares with them: an app loses its CPU at any line,
 * between reading the clock and handing a decision to the store, or between that and the
 * write to the socket. With `onStoreError: 'allow'` (the default) a store error admits, so a
 * burst on a limit of 20 admits exactly 20 only when none of its decisions fails.
 *
 * What the code owes each burst depends on Redis alone, as a watch on a connection of its
 * own measures it (Redis waits for a core too, on a machine this shared): a burst during
 * which Redis never went a storeTimeout without answering admits exactly 20 with no store
 * error; one with a single such stall may lose to it only decisions Redis never answered in
 * time, never one Redis answered "skipped" (sent again, it has a whole storeTimeout); one
 * with more stalls is left out.
 */
const LIMIT = 20;
const BURSTS = 100;
const REQUESTS = 40;
const TIMEOUTS = [10, 50];
const APP_CPU = '0';
const SKIPPED = 'Redis skipped the decision: its caller had stopped waiting';

/** Pins a process, every thread of it, to one CPU. */
function pin(pid: number, cpu: string): void {
  execFileSync('taskset', ['-a', '-cp', cpu, String(pid)], { stdio: 'ignore' });
}

/** A process that keeps `cpu` busy, as another service on the same core does. */
function busyCpu(cpu: string): ChildProcess {
  return spawn('taskset', ['-c', cpu, process.execPath, '-e', 'for (;;);'], { stdio: 'ignore' });
}

/** The store errors the app has reported so far: all, and those Redis answered "skipped". */
async function storeErrors(app: ChildApp): Promise<{ all: number; skipped: number }> {
  const body = (await call(app.port, { path: '/store-errors' })).body as Record<string, number>;
  const all = Object.values(body).reduce((sum, n) => sum + n, 0);
  return { all, skipped: body[SKIPPED] ?? 0 };
}

describe('bursts on apps pinned to one busy CPU', () => {
  let redis: RedisServer;
  let stalls: RedisStalls;
  const apps = new Map<number, ChildApp>();
  let busy: ChildProcess | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    await Promise.all(
      TIMEOUTS.map(async (timeout) => {
        const env = { REDIS_URL: redis.url, PLATFORM: 'express', STORE_TIMEOUT: String(timeout) };
        // Loading an app takes seconds, longer with two at once on a busy machine.
        const app = await startChildApp('burst-app.ts', env, 60_000);
        apps.set(timeout, app);
        pin(app.process.pid!, APP_CPU);
      }),
    );
    busy = busyCpu(APP_CPU);
    stalls = watchRedisStalls(redis.client());
  }, 90_000);
  afterAll(async () => {
    await stalls?.stop();
    await stopProcess(busy, 'SIGKILL');
    await Promise.all([...apps.values()].map((app) => app.stop()));
    await redis?.stop();
  });

  it.each(TIMEOUTS)(
    `storeTimeout %i ms: ${BURSTS} bursts of ${REQUESTS}, each admits exactly ${LIMIT} while Redis answers`,
    async (timeout) => {
      const app = apps.get(timeout)!;
      const failed: string[] = [];
      let onTime = 0;
      for (let round = 0; round < BURSTS; round++) {
        const before = await storeErrors(app);
        stalls.take();
        const statuses = await burst(app.port, `/count?round=pinned-${timeout}-${round}`, REQUESTS);
        const after = await storeErrors(app);
        const errors = after.all - before.all;
        const skipped = after.skipped - before.skipped;
        const redisStalls = stalls.take().filter((gap) => gap >= timeout).length;
        const owed = redisStalls === 0 ? statuses[200] === LIMIT && errors === 0 : skipped === 0;
        if (redisStalls === 0) onTime++;
        if (redisStalls <= 1 && !owed) {
          const stall = redisStalls ? ', after a Redis stall' : '';
          failed.push(
            `burst ${round}: ${JSON.stringify(statuses)}, ${errors} store errors${stall}`,
          );
        }
      }
      expect({ failed, someOnTime: onTime > 0 }).toEqual({ failed: [], someOnTime: true });
    },
    // A burst takes about 0.1 s on a busy machine; the bound leaves room for a busier one.
    60_000,
  );
});
