// The app's pattern (`npm run bench -- --app-pattern`, issue 40 item 4): decisions made as an
// app makes them, a factory limiter per decision over 10,000 keys, `tryAcquire()`, on one
// redis-server, every contender in each round (interleaved), medians. Its main measure is
// Redis's own time inside the script calls per decision (INFO commandstats usec of FCALL,
// EVALSHA and EVAL), beside the redis-server process's CPU and this process's CPU.
//   - 200 in flight: our counter and token bucket against a bare Lua loop that runs only
//     their commands for as many keys per call as our calls carried in that round;
//   - one in flight: our counter, token bucket and concurrency acquire + release against
//     rate-limiter-flexible's consume;
//   - Node CPU per counter decision at 200 in flight against rate-limiter-flexible's (at its
//     auto-pipelining setting that costs it less).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { RateLimiterFactory, RedisStore } from 'nestjs-limiter';
import { commandStats, KEYS } from './engine-cost';
import { bareLoop, BARE, LIBRARY } from './engine-floor';
import { Contender, rlf } from './library';
import { Decide, runLoad } from './load';
import { BenchRedis, redisCpuSeconds, standaloneRedis } from './redis';
import { inRoundOrder, median } from './stats';
import { AppResults, AppRow, appPatternVerdicts } from './app-pattern-targets';

const SCRIPTS = new Set(['eval', 'evalsha', 'fcall', 'eval_ro', 'evalsha_ro', 'fcall_ro']);

/** The decisions as the app makes them: a limiter made for each. */
const APP: Record<string, (factory: RateLimiterFactory) => Decide> = {
  counter: (factory) => (key) => factory.countLimiter({ key, limit: 1e9, period: 60 }).tryAcquire(),
  tokenBucket: (factory) => (key) =>
    factory.rateLimiter({ key, rate: 1e6, burst: 1e3 }).tryAcquire(),
  concurrency: (factory) => async (key) => {
    const slot = await factory.concurrencyLimiter({ key, max: 1e9, lease: 60 }).tryAcquire();
    if (!slot) return false;
    await slot.release();
    return true;
  },
};

interface Measured {
  decide: Decide;
  /** Ours: the engine library loaded (under our name) before its decisions. */
  library?: string;
  calls?: { calls: number; decisions: number };
}

function ours(redis: BenchRedis, limiter: string): Measured & { store: RedisStore } {
  const calls = { calls: 0, decisions: 0 };
  const store = new RedisStore({ client: redis.client(false) });
  store.observeEngineCalls((_ms, decisions) => {
    calls.calls++;
    calls.decisions += decisions;
  });
  return { decide: APP[limiter](new RateLimiterFactory(store)), calls, store };
}

function peer(redis: BenchRedis, contender: Contender): Measured {
  return { decide: contender.make(redis.client(contender.autoPipelining)) };
}

/** One contender's `total` decisions, `inFlight` pending at a time, into `row`. */
async function measureInto(
  redis: BenchRedis,
  admin: Redis,
  measured: Measured,
  load: { total: number; inFlight: number },
  row: AppRow | undefined,
): Promise<void> {
  if (measured.library) await admin.function('LOAD', 'REPLACE', measured.library);
  await admin.flushall();
  await admin.config('RESETSTAT');
  const cpu = await redisCpuSeconds(redis);
  const calls = { ...measured.calls };
  const node = process.cpuUsage();
  const result = await runLoad(measured.decide, { ...load, keys: KEYS });
  const { user, system } = process.cpuUsage(node);
  const redisCpuUs = ((await redisCpuSeconds(redis)) - cpu) * 1e6;
  if (result.allowed !== load.total) throw new Error('a decision was denied');
  const stats = await commandStats(admin);
  let script = 0;
  for (const [name, { usec }] of Object.entries(stats)) if (SCRIPTS.has(name)) script += usec;
  if (!row) return;
  row.scriptUs.push(script / load.total);
  row.redisCpuUs.push(redisCpuUs / load.total);
  row.nodeCpuUs.push((user + system) / load.total);
  if (measured.calls) {
    const made = measured.calls.calls - calls.calls!;
    row.decisionsPerCall.push((measured.calls.decisions - calls.decisions!) / made);
  }
}

const newRow = (): AppRow => ({
  scriptUs: [],
  redisCpuUs: [],
  nodeCpuUs: [],
  decisionsPerCall: [],
});

/**
 * Ours with each library: this build's, and `before`'s (another build's library.generated.lua,
 * loaded under this one's name) as rows ending ' before': two engines' Lua in one run.
 */
function withLibraries(rows: [string, Measured][], before?: string): [string, Measured][] {
  if (before === undefined) return rows;
  const library = readFileSync(LIBRARY, 'utf8');
  const renamed = before.replace(/^#!lua name=\S+/, library.split('\n')[0]);
  return rows.flatMap(([id, m]): [string, Measured][] => [
    [id, { ...m, library }],
    [`${id} before`, { ...m, library: renamed }],
  ]);
}

/** Every row of the section, `rounds` interleaved rounds after one that warms up. */
export async function appPatternRounds(
  redis: BenchRedis,
  { rounds, total, log, before }: AppPatternOptions,
): Promise<AppResults> {
  const admin = redis.client(false) as Redis;
  const rows: AppResults = {};
  const mine = Object.fromEntries(Object.keys(APP).map((name) => [name, ours(redis, name)]));
  const one: [string, Measured][] = [
    ...withLibraries(
      Object.entries(mine).map(([name, m]) => [`${name}@1`, m]),
      before,
    ),
    ['rlf@1', peer(redis, rlf(false))],
  ];
  const many: [string, Measured][] = [
    ...withLibraries(
      [
        ['counter@200', mine.counter],
        ['tokenBucket@200', mine.tokenBucket],
      ],
      before,
    ),
    ['rlf@200', peer(redis, rlf(false))],
    ['rlf+ap@200', peer(redis, rlf(true))],
  ];
  for (let round = 0; round <= rounds; round++) {
    for (const [id, m] of inRoundOrder(one, round)) {
      const row = round === 0 ? undefined : (rows[id] ??= newRow());
      await measureInto(redis, admin, m, { total: total / 4, inFlight: 1 }, row);
    }
    for (const [id, m] of inRoundOrder(many, round)) {
      const row = round === 0 ? undefined : (rows[id] ??= newRow());
      await measureInto(redis, admin, m, { total, inFlight: 200 }, row);
      // The bare loop of the algorithm's commands, as many keys a call as ours carried.
      const limiter = id.split('@')[0];
      if (!row || !(limiter in BARE) || !id.endsWith('@200')) continue;
      const keysPerCall = Math.max(1, Math.round(row.decisionsPerCall.at(-1)!));
      const bare = (rows[`${limiter}-bare@200`] ??= newRow());
      bare.scriptUs.push(
        await bareLoop(admin, BARE[limiter as keyof typeof BARE], total, keysPerCall),
      );
      bare.decisionsPerCall.push(keysPerCall);
    }
    if (round > 0) log(`  app pattern round ${round}: ${roundLine(rows)}`);
  }
  await Promise.all(Object.values(mine).map((m) => m.store.close()));
  return rows;
}

const roundLine = (rows: AppResults) =>
  Object.entries(rows)
    .map(([id, row]) => `${id} ${row.scriptUs.at(-1)!.toFixed(2)}`)
    .join(', ');

interface AppPatternOptions {
  rounds: number;
  total: number;
  log: (line: string) => void;
  /** Another engine library's text, measured beside this build's (withLibraries). */
  before?: string;
}

/**
 * `--app-pattern [--before=<library.generated.lua>]`: the section alone, on a server of its
 * own; bench/results/app-pattern.json.
 */
export async function appPattern(
  log: (line: string) => void,
  results: string,
  quick: boolean,
  beforeFile?: string,
  rounds = 5,
): Promise<void> {
  const redis = await standaloneRedis();
  const before = beforeFile === undefined ? undefined : readFileSync(beforeFile, 'utf8');
  try {
    const rows = await appPatternRounds(redis, {
      rounds: quick ? 1 : rounds,
      total: quick ? 8_000 : 20_000,
      log,
      before,
    });
    mkdirSync(results, { recursive: true });
    writeFileSync(join(results, 'app-pattern.json'), JSON.stringify(rows, null, 2));
    log('\nmedians per decision (script µs, Redis CPU µs, Node CPU µs, decisions a call):');
    for (const [id, row] of Object.entries(rows)) {
      const batch = row.decisionsPerCall.length ? median(row.decisionsPerCall).toFixed(1) : '-';
      const cpu = (values: number[]) => (values.length ? median(values).toFixed(2) : '-');
      log(
        `  ${id.padEnd(22)} ${median(row.scriptUs).toFixed(2)} ${cpu(row.redisCpuUs)} ${cpu(row.nodeCpuUs)} ${batch}`,
      );
    }
    log('\ntargets:');
    for (const line of appPatternVerdicts(rows)) log(`  ${line}`);
    if (before === undefined) return;
    log('\nthe same, with the library before:');
    for (const line of appPatternVerdicts(rows, ' before')) log(`  ${line}`);
  } finally {
    await redis.stop();
  }
}
