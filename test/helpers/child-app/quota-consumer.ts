/**
 * One app server charging a calendar quota through `factory.quota`. Env: REDIS_URL, KEY,
 * LIMIT, SOFT (softLimit), ANCHOR (an ISO date-time: daily cycles start at its time of day),
 * SKEW_MS (this server's `Date.now()` is off by as much: the quota must still charge Redis's
 * cycle), START_AT and STOP_AT (true epoch ms), IN_FLIGHT. With START_FILE, it prints `READY`
 * once loaded and connected, and waits for that file to hold `{ anchor, startAt, stopAt }`
 * (servers load for seconds on a busy machine: the test sets the times once all are ready).
 * MODE=burst: consumes 1 until STOP_AT and prints `R <sentAt> <receivedAt> <cycleStart>
 * <used> <allowed> <soft>` per call (true times, before and after the call).
 * MODE=ids: consumes once per id of IDS (comma-separated, in this order) with it as the
 * idempotency key, printing `I <id> <used> <repeated>` per call, `HALF` half-way and `DONE`.
 */
import { existsSync, readFileSync } from 'node:fs';
import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../../src';

/**
 * The wall clock before SKEW_MS moves `Date.now`: the clock Redis's TIME reads. Not
 * performance.timeOrigin + now(), which runs up to a millisecond ahead of the wall clock: a
 * request it calls sent after the cycle's boundary could reach Redis just before it.
 */
const trueNow = Date.now.bind(Date);
const env = (name: string) => process.env[name] ?? '';

async function main(): Promise<void> {
  const skew = Number(env('SKEW_MS') || 0);
  Date.now = () => trueNow() + skew;
  const store = new RedisStore({ client: new Redis(env('REDIS_URL')), ownsClient: true });
  await store.check();
  const times = await startTimes();
  const quota = new RateLimiterFactory(store).quota({
    key: env('KEY'),
    limit: Number(env('LIMIT')),
    cycle: 'day',
    anchor: times.anchor,
    softLimit: env('SOFT') ? Number(env('SOFT')) : undefined,
  });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, times.startAt - trueNow())));
  const lines: string[] = [];
  const inFlight = Number(env('IN_FLIGHT') || 10);
  if (env('MODE') === 'burst') {
    const { stopAt } = times;
    const worker = async () => {
      while (trueNow() < stopAt) {
        const sentAt = trueNow();
        const r = await quota.consume();
        const receivedAt = trueNow();
        lines.push(
          `R ${sentAt} ${receivedAt} ${r.cycleStart} ${r.used} ${r.allowed ? 1 : 0} ${r.softLimitReached ? 1 : 0}`,
        );
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    console.log(lines.join('\n'));
  } else {
    const ids = env('IDS').split(',');
    let next = 0;
    let done = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++];
        const r = await quota.consume(1, { idempotencyKey: id });
        // Printed at once: a server killed half-way has told what it was answered.
        console.log(`I ${id} ${r.used} ${r.repeated ? 1 : 0}`);
        if (++done === Math.floor(ids.length / 2)) console.log('HALF');
      }
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
  }
  await store.close();
  console.log('DONE');
}

async function startTimes(): Promise<{ anchor: string; startAt: number; stopAt: number }> {
  const file = env('START_FILE');
  if (!file) {
    const [startAt, stopAt] = [Number(env('START_AT')), Number(env('STOP_AT'))];
    return { anchor: env('ANCHOR'), startAt, stopAt };
  }
  console.log('READY');
  for (;;) {
    if (existsSync(file)) {
      const text = readFileSync(file, 'utf8');
      if (text.endsWith('\n'))
        return JSON.parse(text) as { anchor: string; startAt: number; stopAt: number };
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
