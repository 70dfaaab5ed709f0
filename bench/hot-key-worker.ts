// One app process of the hot-key bench (hot-key.ts): decisions on one counter key through the
// factory, a number of them in flight; it waits for 'go', then sends its figures and exits.
import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { runMain } from './app-process';
import { Decide, runLoad } from './load';

export type HotKeyMode = 'one by one' | 'coalesced' | 'lease: 100';
/** High enough that every decision is allowed: each takes the key's normal, allowed path. */
const LIMIT = 1e9;

/**
 * `coalesced`: one factory, so every decision is of one limit and a call's decisions on the
 * key are one entry. `one by one`: a factory per caller, so no two entries of a call share
 * a limit object and each is decided alone, as before coalescing. `lease: 100`: one
 * factory, the limit leased 100 permits at a time.
 */
function decider(mode: HotKeyMode, store: RedisStore): () => Decide {
  const lease = mode === 'lease: 100' ? { lease: 100 } : {};
  const limiter = (factory: RateLimiterFactory) =>
    factory.countLimiter({ key: 'hot', limit: LIMIT, period: 600, ...lease });
  if (mode !== 'one by one') {
    const shared = limiter(new RateLimiterFactory(store));
    return () => () => shared.tryAcquire();
  }
  return () => {
    const own = limiter(new RateLimiterFactory(store));
    return () => own.tryAcquire();
  };
}

runMain(async () => {
  const [mode, url, total, inFlight] = process.argv.slice(2);
  const IN_FLIGHT = Number(inFlight);
  const store = new RedisStore({ client: new Redis(url), ownsClient: true });
  await store.check();
  const newCaller = decider(mode as HotKeyMode, store);
  const callers = Array.from({ length: IN_FLIGHT }, newCaller);
  let next = 0;
  const decide: Decide = () => callers[next++ % IN_FLIGHT]('hot');
  const send = (message: unknown) => (process.send as (message: unknown) => void)(message);
  process.once('message', async () => {
    const result = await runLoad(decide, {
      total: Number(total),
      inFlight: IN_FLIGHT,
      keys: ['hot'],
    });
    await store.close();
    send(result);
    process.exit(0);
  });
  send('ready');
});
