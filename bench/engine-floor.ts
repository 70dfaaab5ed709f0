// The floor under an engine entry (`npm run bench -- --engine-floor`): for the counter and the
// token bucket at batches of 200, Redis's script µs per decision of
//   - the engine as it runs;
//   - the engine with the algorithm's function answering a constant reply, running no
//     command: what the engine itself costs per entry (reading the entry's fields, its argv
//     table, the protected call, formatting the reply);
//   - a bare Lua loop that runs the algorithm's commands on the same keys and nothing else:
//     the commands as Lua can run them at all (each redis.call crosses the Lua–Redis bridge,
//     which INFO commandstats does not count in the command's own time).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { commandStats, KEYS, Measure, measure } from './engine-cost';
import { Limiter, LIMITERS, NAMES } from './library';
import { standaloneRedis } from './redis';

const BATCH = 200;
const LIBRARY = join(__dirname, '..', '..', '..', 'lib', 'stores', 'engine', 'engine.library.lua');

/** A measured algorithm: its entry function in the library, and its commands, bare. */
interface Floor {
  entry: string;
  bare: string;
}

const FLOORS: Partial<Record<Limiter, Floor>> = {
  counter: {
    entry: 'limiterCountLimitWithBlock',
    bare: `for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], 1)
  if redis.call('PTTL', KEYS[i]) < 0 then redis.call('PEXPIRE', KEYS[i], 60000) end
end`,
  },
  tokenBucket: {
    entry: 'limiterRateLimitWithBlock',
    bare: `redis.call('TIME')
for i = 1, #KEYS do
  redis.call('GET', KEYS[i])
  redis.call('SET', KEYS[i], '1795731206444331', 'PX', 60000)
end`,
  },
};

/** The library with `entry` answering allowed at once, under the same name: FUNCTION LOAD REPLACE. */
function stubbed(library: string, entry: string): string {
  const head = `local function ${entry}(key, now, argv)\n`;
  if (!library.includes(head)) throw new Error(`the engine library has no ${entry}`);
  return library.replace(head, `${head}  do return {1, 1, 1, 0, 0} end\n`);
}

/** Script µs per decision of the bare loop, BATCH keys per EVAL. */
async function bareLoop(admin: Redis, script: string, total: number): Promise<number> {
  await admin.flushall();
  await admin.config('RESETSTAT');
  for (let next = 0; next < total; next += BATCH) {
    const keys = Array.from({ length: BATCH }, (_, j) => KEYS[(next + j) % KEYS.length]);
    await admin.eval(script, keys.length, ...keys);
  }
  return (await commandStats(admin)).eval.usec / total;
}

export async function engineFloor(log: (line: string) => void, total = 40_000): Promise<void> {
  const redis = await standaloneRedis();
  const admin = redis.client(false) as Redis;
  const library = readFileSync(LIBRARY, 'utf8');
  const f = (n: number) => n.toFixed(2);
  try {
    for (const [limiter, floor] of Object.entries(FLOORS) as [Limiter, Floor][]) {
      const store = new RedisStore({ client: redis.client(false) });
      await store.check();
      const decide = LIMITERS[limiter](new RateLimiterFactory(store));
      const engine = (): Promise<Measure> => measure(redis, admin, decide, BATCH, total);
      await engine();
      const runs = { engine: [] as number[], stub: [] as number[], bare: [] as number[] };
      for (let round = 0; round < 3; round++) {
        await admin.function('LOAD', 'REPLACE', library);
        runs.engine.push((await engine()).scriptUs);
        await admin.function('LOAD', 'REPLACE', stubbed(library, floor.entry));
        runs.stub.push((await engine()).scriptUs);
        runs.bare.push(await bareLoop(admin, floor.bare, total));
      }
      await admin.function('LOAD', 'REPLACE', library);
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[1];
      log(
        `${NAMES[limiter]}, batches of ${BATCH}, script µs per decision (median of 3): ` +
          `engine ${f(median(runs.engine))}, engine with the algorithm stubbed ` +
          `${f(median(runs.stub))}, its commands from a bare Lua loop ${f(median(runs.bare))}`,
      );
      await store.close();
    }
  } finally {
    await redis.stop();
  }
}
