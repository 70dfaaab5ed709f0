// Redis's side of a decision, without perf (`npm run bench -- --engine-cost`): for each
// algorithm, engine calls of 1 to 200 decisions (all sent in one event-loop turn), and
// rate-limiter-flexible's consume on the same server with as many in flight, so each batch
// size is also a row of Redis CPU per decision at that many in flight, as a ratio to it. Per decision: the redis-server
// process's CPU (INFO cpu: reading, parsing and replying included), the time inside the
// script calls and inside the commands the scripts ran (INFO commandstats usec), and those
// commands. A fit over the batch sizes splits the script time into a cost per call and a
// cost per entry; the entry's Lua work is its script time less its commands'.
import type { Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { Decide } from './load';
import { Limiter, LIMITERS, NAMES, rlf } from './library';
import { BenchRedis, redisCpuSeconds, standaloneRedis } from './redis';

const BATCHES = [1, 10, 50, 200];
export const KEYS = Array.from({ length: 10_000 }, (_, i) => `bench:user:${i}`);
const SCRIPTS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
const OURS = new Set([
  'info',
  'flushall',
  'config|resetstat',
  'config',
  'function|load',
  'function',
]);

export interface Measure {
  /** µs of the redis-server process per decision. */
  cpuUs: number;
  /** µs inside script calls per decision, and inside the commands they ran. */
  scriptUs: number;
  commandsUs: number;
  /** Script calls and commands per decision. */
  calls: number;
  commands: Record<string, number>;
}

export async function commandStats(
  admin: Redis,
): Promise<Record<string, { calls: number; usec: number }>> {
  const stats: Record<string, { calls: number; usec: number }> = {};
  const info = await admin.info('commandstats');
  for (const [, name, calls, usec] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (!OURS.has(name)) stats[name] = { calls: Number(calls), usec: Number(usec) };
  }
  return stats;
}

/** `total` decisions, `batch` of them sent in each event-loop turn, one turn after another. */
export async function measure(
  redis: BenchRedis,
  admin: Redis,
  decide: Decide,
  batch: number,
  total: number,
): Promise<Measure> {
  await admin.flushall();
  await admin.config('RESETSTAT');
  const cpu = await redisCpuSeconds(redis);
  let next = 0;
  for (let i = 0; i < total / batch; i++) {
    const decisions = [];
    for (let j = 0; j < batch; j++) decisions.push(decide(KEYS[next++ % KEYS.length]));
    if (!(await Promise.all(decisions)).every(Boolean)) throw new Error('a decision was denied');
  }
  const cpuUs = ((await redisCpuSeconds(redis)) - cpu) * 1e6;
  const stats = await commandStats(admin);
  const m: Measure = { cpuUs: cpuUs / total, scriptUs: 0, commandsUs: 0, calls: 0, commands: {} };
  for (const [name, { calls, usec }] of Object.entries(stats)) {
    if (SCRIPTS.has(name)) {
      m.scriptUs += usec / total;
      m.calls += calls / total;
    } else {
      m.commandsUs += usec / total;
      m.commands[name] = calls / total;
    }
  }
  return m;
}

const f = (n: number) => n.toFixed(2);

/** Per batch size (`batches`), the peer's measure and each of ours: the rows of one run. */
export interface EngineCostRun {
  batches: number[];
  peer: Measure[];
  ours: Partial<Record<Limiter, Measure[]>>;
}

/** Redis CPU µs per decision of several runs: per batch size, each run's figure. */
export interface EngineCostResults {
  batches: number[];
  peer: number[][];
  ours: Partial<Record<Limiter, number[][]>>;
}

/** `rounds` runs on `redis`, quietly: the bench of record's rows at 1 to 200 in flight. */
export async function engineCostRounds(
  redis: BenchRedis,
  rounds: number,
  total: number,
): Promise<EngineCostResults> {
  const results: EngineCostResults = { batches: BATCHES, peer: BATCHES.map(() => []), ours: {} };
  for (let round = 0; round < rounds; round++) {
    const run = await engineCostRun(redis, () => undefined, total);
    run.peer.forEach((m, i) => results.peer[i].push(m.cpuUs));
    for (const [limiter, byBatch] of Object.entries(run.ours) as [Limiter, Measure[]][]) {
      const cpu = (results.ours[limiter] ??= BATCHES.map(() => []));
      byBatch.forEach((m, i) => cpu[i].push(m.cpuUs));
    }
  }
  return results;
}

/** `--engine-cost`: one run on a server of its own, logged. */
export async function engineCost(log: (line: string) => void, total = 20_000): Promise<void> {
  const redis = await standaloneRedis();
  try {
    await engineCostRun(redis, log, total);
  } finally {
    await redis.stop();
  }
}

/** Every batch size of the peer, then of each of our algorithms, on `redis`. */
export async function engineCostRun(
  redis: BenchRedis,
  log: (line: string) => void,
  total = 20_000,
): Promise<EngineCostRun> {
  const admin = redis.client(false) as Redis;
  const results: EngineCostRun = { batches: BATCHES, peer: [], ours: {} };
  try {
    const peer = rlf(false).make(redis.client(false));
    await measure(redis, admin, peer, 50, 2_000);
    for (const batch of BATCHES) {
      const theirs = await measure(redis, admin, peer, batch, total);
      results.peer.push(theirs);
      log(
        `rate-limiter-flexible, ${batch} in flight (one script call each): Redis CPU ` +
          `${f(theirs.cpuUs)} µs, script ${f(theirs.scriptUs)} µs of which commands ` +
          `${f(theirs.commandsUs)} µs; ${JSON.stringify(theirs.commands)}`,
      );
    }
    for (const limiter of Object.keys(LIMITERS) as Limiter[]) {
      const store = new RedisStore({ client: redis.client(false) });
      const decide = LIMITERS[limiter](new RateLimiterFactory(store));
      await measure(redis, admin, decide, 50, 2_000);
      const byBatch: Measure[] = [];
      for (const batch of BATCHES) byBatch.push(await measure(redis, admin, decide, batch, total));
      results.ours[limiter] = byBatch;
      logAlgorithm(log, limiter, byBatch, results.peer);
      await store.close();
    }
  } finally {
    admin.disconnect();
  }
  return results;
}

function logAlgorithm(
  log: (line: string) => void,
  limiter: Limiter,
  byBatch: Measure[],
  peer: Measure[],
): void {
  // script µs per decision = perCall / batch + perEntry, fitted on the smallest and largest.
  const [one, most] = [byBatch[0], byBatch[byBatch.length - 1]];
  const size = BATCHES[BATCHES.length - 1];
  const perEntry = (one.scriptUs - most.scriptUs * size) / (1 - size);
  const perCall = one.scriptUs - perEntry;
  log(`${NAMES[limiter]}: commands per decision ${JSON.stringify(most.commands)}`);
  log(
    `  script cost per call ${f(perCall)} µs, per entry ${f(perEntry)} µs ` +
      `(its commands ${f(most.commandsUs)} µs, Lua ${f(perEntry - most.commandsUs)} µs)`,
  );
  BATCHES.forEach((batch, i) => {
    const m = byBatch[i];
    log(
      `  batch ${String(batch).padStart(3)}: Redis CPU ${f(m.cpuUs)} µs ` +
        `(${f(m.cpuUs / peer[i].cpuUs)}× rate-limiter-flexible's at ${batch} in ` +
        `flight), script ${f(m.scriptUs)} µs, ` +
        `commands ${f(m.commandsUs)} µs, ${f(m.calls * batch)} calls per batch`,
    );
  });
}
