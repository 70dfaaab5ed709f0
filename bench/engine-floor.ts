// The floor under an engine entry (`npm run bench -- --engine-floor`): for each algorithm at
// batches of 200, Redis's script µs per decision of
//   - the engine as it runs;
//   - the engine with the algorithm's function answering a constant reply, running no
//     command: what the engine itself costs per entry (reading the entry's fields, the
//     protected call, formatting the reply);
//   - a bare Lua loop that runs the algorithm's commands on the same keys and nothing else:
//     the commands as Lua can run them at all (each redis.call crosses the Lua–Redis bridge,
//     which INFO commandstats does not count in the command's own time).
// Issue 31's rule: the engine's Lua beyond its commands (engine less bare) is at most the bare
// loop's time, a ratio ≤ 1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { commandStats, KEYS, Measure, measure } from './engine-cost';
import { Decide } from './load';
import { Limiter, LIMITERS, NAMES } from './library';
import { standaloneRedis } from './redis';
import { median } from './stats';

const BATCH = 200;
const ROUNDS = 5;
/** This build's engine library (app-pattern.ts loads it too). */
export const LIBRARY = join(
  __dirname,
  '..',
  '..',
  '..',
  'lib',
  'stores',
  'redis',
  'engine',
  'library.generated.lua',
);

/**
 * A measured algorithm: the acquire its entries file adds to the library's table (its
 * add_entries call's `acquire`), and its commands, bare.
 */
interface Floor {
  acquire: string;
  /** The bare loop, with KEYS the batch's keys, and ARGV a new id for each where it reads ARGV. */
  bare: string;
  /** The decision measured and its name, where they are not the library bench's. */
  decide?: (factory: RateLimiterFactory) => Decide;
  label?: string;
}

const T = '1795731206444331';
// The tail of a request's id: ids are as long as the engine's (a UUID).
const UUID = '7c1e2f4a-9b3d-4e5f-8a6b-0c1d2e3f';
// The values written are as long as the engine's (a µs timestamp, or three of them).
const STRING_STATE = (value: string) => `redis.call('TIME')
for i = 1, #KEYS do
  redis.call('GET', KEYS[i])
  redis.call('SET', KEYS[i], '${value}', 'PX', 60000)
end`;
// Read every member, add the request's, push the TTL: a sliding log's and a lease's commands.
const ZSET_STATE = `redis.call('TIME')
for i = 1, #KEYS do
  redis.call('ZRANGE', KEYS[i], 0, -1, 'WITHSCORES')
  redis.call('ZADD', KEYS[i], '${T}', ARGV[i])
  redis.call('PEXPIRE', KEYS[i], 60000)
end`;

/** The bare loops of the counter's and the token bucket's commands (app-pattern.ts too). */
export const BARE = {
  counter: `for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], 1)
  if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], 60000) end
end`,
  tokenBucket: STRING_STATE(T),
};

const FLOORS: Record<Limiter, Floor> = {
  counter: { acquire: 'count_limit', bare: BARE.counter },
  tokenBucket: { acquire: 'rate_limit', bare: BARE.tokenBucket },
  slidingLog: { acquire: 'sliding_window_limit', bare: ZSET_STATE },
  approximateWindow: {
    acquire: 'approximate_sliding_window_limit',
    bare: STRING_STATE('29928853 4 0'),
  },
  leakyBucket: { acquire: 'leaky_bucket_limit', bare: STRING_STATE(T) },
  // The acquire alone (the library bench's row adds the release, a second call).
  concurrency: {
    label: 'concurrency (the acquire alone)',
    acquire: 'concurrency_limit',
    bare: ZSET_STATE,
    decide: (factory) => async (key) =>
      (await factory.concurrencyLimiter({ key, max: 1e8, lease: 60 }).tryAcquire()) !== null,
  },
};

/**
 * The library with the acquire entry that `acquire`'s add_entries call adds (its first, at the
 * table's length before the call) answering allowed at once, under the same index.
 */
function stubbed(library: string, acquire: string): string {
  const call = new RegExp(
    `^add_entries\\(\\w+, \\{[^}]*\\bacquire = ${acquire}\\b[^}]*\\}\\)$`,
    'm',
  );
  if (!call.test(library)) throw new Error(`the engine library adds no entries for ${acquire}`);
  return library.replace(
    call,
    (adds) =>
      `local stubbed_at = #algorithms + 1\n${adds}\n` +
      'algorithms[stubbed_at] = function() return {1, 1, 1, 0, 0} end',
  );
}

/** Script µs per decision of the bare loop, `batch` keys (and ids) per EVAL. */
export async function bareLoop(
  admin: Redis,
  script: string,
  total: number,
  batch = BATCH,
): Promise<number> {
  await admin.flushall();
  await admin.config('RESETSTAT');
  for (let next = 0; next < total; next += batch) {
    const keys = Array.from({ length: batch }, (_, j) => KEYS[(next + j) % KEYS.length]);
    const ids = script.includes('ARGV') ? keys.map((_, j) => `${next + j}-${UUID}`) : [];
    await admin.eval(script, keys.length, ...keys, ...ids);
  }
  return (await commandStats(admin)).eval.usec / total;
}

/** Every algorithm, or those named in `only`. */
export async function engineFloor(
  log: (line: string) => void,
  only: readonly string[] = [],
  total = 40_000,
): Promise<void> {
  const redis = await standaloneRedis();
  const admin = redis.client(false) as Redis;
  const library = readFileSync(LIBRARY, 'utf8');
  const f = (n: number) => n.toFixed(2);
  try {
    for (const [limiter, floor] of Object.entries(FLOORS) as [Limiter, Floor][]) {
      if (only.length > 0 && !only.includes(limiter)) continue;
      const store = new RedisStore({ client: redis.client(false) });
      await store.check();
      const factory = new RateLimiterFactory(store);
      const decide = floor.decide?.(factory) ?? LIMITERS[limiter](factory);
      const engine = (): Promise<Measure> => measure(redis, admin, decide, BATCH, total);
      await engine();
      const runs = { engine: [] as number[], stub: [] as number[], bare: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        await admin.function('LOAD', 'REPLACE', library);
        runs.engine.push((await engine()).scriptUs);
        await admin.function('LOAD', 'REPLACE', stubbed(library, floor.acquire));
        runs.stub.push((await engine()).scriptUs);
        runs.bare.push(await bareLoop(admin, floor.bare, total));
      }
      await admin.function('LOAD', 'REPLACE', library);
      const [ran, stub, bare] = [median(runs.engine), median(runs.stub), median(runs.bare)];
      log(
        `${floor.label ?? NAMES[limiter]}, batches of ${BATCH}, script µs ` +
          `per decision (median of ${ROUNDS}): engine ${f(ran)}, engine with the algorithm stubbed ` +
          `${f(stub)}, its commands from a bare Lua loop ${f(bare)}; Lua beyond the commands ` +
          `${f(ran - bare)} µs, ${f((ran - bare) / bare)}× the commands`,
      );
      await store.close();
    }
  } finally {
    await redis.stop();
  }
}
