/**
 * One app server leasing permits of one counter key through the factory (`lease`). Env:
 * REDIS_URL, KEY, LIMIT (per PERIOD seconds, default 600), LEASE, ATTEMPTS (tryAcquire
 * calls, 200 in flight), START_AT (epoch ms: the servers of a test start together) or, with
 * START_ON_SIGNAL set, none: it prints `READY` once connected and starts on SIGUSR2. Prints
 * `ALLOWED <n>` once its attempts are done, then closes its store (giving back what it did
 * not use) and exits. With HANG set it stops after its attempts, prints `HANGING` and waits
 * to be killed: a server that dies keeps its lease. With STOP_SELF too it then stops itself
 * (SIGSTOP, as a frozen app), and once continued (SIGCONT) prints `RESUMED` when what it
 * sent on resuming has run.
 */
import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../../src';
import { allowedOf } from '../in-flight';

async function main(): Promise<void> {
  const env = (name: string) => process.env[name] ?? '';
  const store = new RedisStore({ client: new Redis(env('REDIS_URL')), ownsClient: true });
  await store.check();
  const limiter = new RateLimiterFactory(store).countLimiter({
    key: env('KEY'),
    limit: Number(env('LIMIT')),
    period: Number(process.env.PERIOD ?? 600),
    lease: Number(env('LEASE')),
  });
  if (process.env.START_ON_SIGNAL) {
    const go = new Promise((resolve) => process.once('SIGUSR2', resolve));
    console.log('READY');
    await go;
  } else {
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, Number(env('START_AT')) - Date.now())),
    );
  }
  const allowed = await allowedOf(() => limiter.tryAcquire(), Number(env('ATTEMPTS')));
  console.log(`ALLOWED ${allowed}`);
  if (process.env.HANG) {
    console.log('HANGING');
    setInterval(() => undefined, 60_000);
    if (process.env.STOP_SELF) {
      process.kill(process.pid, 'SIGSTOP');
      // Continued: the lease's overdue end has run; a PING answers after what it sent.
      setTimeout(() => void store.client.ping().then(() => console.log('RESUMED')), 50);
    }
    return;
  }
  await store.close();
  console.log('CLOSED');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
