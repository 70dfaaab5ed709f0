// `npm run bench`: every section on Redis servers of its own, then the targets, written to
// BENCHMARKS.md and bench/results/latest.json.
//   --quick   one short round of everything; writes bench/results/quick.json only
//   --report  rewrites BENCHMARKS.md from bench/results/latest.json
//   --library the library level on one Redis alone (5 rounds, or 1 with --quick), with each
//             row's ratios to rate-limiter-flexible; writes bench/results/library.json only
//   --engine-cost  Redis's side of a decision by algorithm and batch size (engine-cost.ts)
//   --engine-floor what an engine entry costs beyond its commands (engine-floor.ts); names
//             after it (counter, tokenBucket...) measure those algorithms alone
//   --app-pattern  decisions as an app makes them, a limiter per decision, at 1 and 200 in flight,
//             against a bare loop of their commands and rate-limiter-flexible (app-pattern.ts);
//             writes bench/results/app-pattern.json only; --before=<library.generated.lua> adds
//             our rows on that library too, loaded under this build's name, in the same rounds;
//             --rounds=<n> for more than 5
//   --engine-call  where one engine call's time goes: the counter's one-decision call against its
//             commands alone, per call and in a Lua loop (engine-call.ts); --before as above
//   --hot-key  one hot key, 1 and 3 processes, with and without coalescing and leases (hot-key.ts)
//   --overload the overload guard against no guard and a static limit (overload.ts); writes
//             bench/results/overload.json and prints the Markdown for BENCHMARKS.md
//   --guard-express  the guard alone on Express's own request objects, one @CountLimit per IP
//             on Redis, and on the memory store: Node CPU µs per canActivate (5 rounds, or 2
//             with --quick; guard-express.ts)
//   --http     the HTTP level alone (5 rounds, or 1 with --quick): requests/s and app CPU per
//             request of the bare app, ours and @nestjs/throttler with its Redis storage
//   --upstream calls to a mock API that limits them: nestjs-limiter's upstream budget, Bottleneck's
//             clustering and no limiter, 8 caller processes (upstream.ts)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { engineCost, engineCostRounds } from './engine-cost';
import { engineFloor } from './engine-floor';
import { appPattern } from './app-pattern';
import { engineCall } from './engine-call';
import { floodBench } from './flood';
import { guardBench, GuardResults, plansOnRedisBench } from './guard';
import { guardExpressBench } from './guard-express';
import { hotKeyBench } from './hot-key';
import { overloadBench, overloadMarkdown } from './overload';
import { upstreamBench } from './upstream';
import { httpBench } from './http';
import type { HttpVariant } from './http-app';
import { CLUSTER, libraryBench, Row, STANDALONE } from './library';
import { memoryBench } from './memory';
import { BenchRedis, clusterRedis, standaloneRedis } from './redis';
import { renderMarkdown } from './report';
import { median } from './stats';
import { evaluateTargets, Results } from './targets';

// This file runs as bench/dist/bench/run.js.
const ROOT = join(__dirname, '..', '..', '..');
const RESULTS = join(ROOT, 'bench', 'results');
const writeReport = (results: Results) =>
  writeFileSync(
    join(ROOT, 'BENCHMARKS.md'),
    renderMarkdown(results, readFileSync(join(ROOT, 'bench', 'analysis.md'), 'utf8')),
  );
const quick = process.argv.includes('--quick');
const log = (line: string) => console.log(line);

const version = (name: string): string =>
  JSON.parse(readFileSync(require.resolve(`${name}/package.json`, { paths: [ROOT] }), 'utf8'))
    .version;

async function withRedis<T>(start: () => Promise<BenchRedis>, run: (r: BenchRedis) => Promise<T>) {
  const redis = await start();
  try {
    return await run(redis);
  } finally {
    await redis.stop();
  }
}

/** The guard's cost per request alone (`--guard`): medians per variant, in memory and on Redis. */
async function guardOnly(): Promise<void> {
  const [rounds, calls] = [quick ? 2 : 5, quick ? 20_000 : 50_000];
  const inMemory = await guardBench(rounds, calls);
  const plans = await withRedis(standaloneRedis, (redis) =>
    plansOnRedisBench(redis.url, rounds, calls),
  );
  for (const [where, rows] of [
    ['in memory', inMemory],
    ['on Redis, Node CPU', plans],
  ] as const) {
    for (const [variant, values] of Object.entries(rows)) {
      log(`${variant} ${where}: ${median(values).toFixed(2)} µs per request`);
    }
  }
}

async function main(): Promise<void> {
  if (process.argv.includes('--report')) {
    writeReport(JSON.parse(readFileSync(join(RESULTS, 'latest.json'), 'utf8')));
    return;
  }
  if (process.argv.includes('--library')) return libraryOnly();
  if (process.argv.includes('--engine-cost')) return engineCost(log);
  if (process.argv.includes('--engine-floor'))
    return engineFloor(
      log,
      process.argv.slice(2).filter((arg) => !arg.startsWith('--')),
    );
  const before = process.argv.find((arg) => arg.startsWith('--before='))?.slice(9);
  const appRounds = Number(process.argv.find((arg) => arg.startsWith('--rounds='))?.slice(9) ?? 5);
  if (process.argv.includes('--app-pattern'))
    return appPattern(log, RESULTS, quick, before, appRounds);
  if (process.argv.includes('--engine-call')) return engineCall(log, before);
  if (process.argv.includes('--hot-key')) return void (await hotKeyBench(log));
  if (process.argv.includes('--upstream')) return upstreamBench(log, quick);
  if (process.argv.includes('--guard')) return guardOnly();
  if (process.argv.includes('--guard-express')) return guardExpressOnly();
  if (process.argv.includes('--http')) return httpOnly();
  if (process.argv.includes('--overload')) return overloadOnly();
  const started = Date.now();
  const rounds = quick ? 1 : 10;
  const total = quick ? 20_000 : 100_000;
  let onRedis: GuardResults['onRedis'];
  const partial: Partial<Results> = {
    startedAt: new Date(started).toISOString(),
    quick,
    machine: {
      commit: execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
      'load average at the start': loadavg()[0].toFixed(1),
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? 'unknown',
      memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
      node: process.version,
      ...Object.fromEntries(
        ['ioredis', 'rate-limiter-flexible', '@nestjs/throttler'].map((n) => [n, version(n)]),
      ),
    },
  };
  // First, in a process that has done nothing else: run after the sections on Redis, this
  // bench of the guard alone measured every row slower than it does alone, and unevenly.
  log('guard cost, in memory');
  const inMemory = await guardBench(quick ? 2 : 10, quick ? 20_000 : 100_000);
  await withRedis(standaloneRedis, async (redis) => {
    const [info] = await redis.onEachMaster('INFO', 'server');
    partial.machine = {
      ...partial.machine,
      redis: /redis_version:(\S+)/.exec(String(info))?.[1] ?? '?',
    };
    log('library level, one Redis');
    partial.standalone = await libraryBench(redis, STANDALONE, { rounds, total, log });
    log('flood');
    partial.flood = await floodBench(redis);
    log('memory');
    partial.memory = await memoryBench(redis);
    log('HTTP level');
    partial.http = await httpBench(redis, { rounds: quick ? 1 : 12, duration: quick ? 2 : 3, log });
    log('Redis CPU per decision, 1 to 200 in flight');
    partial.engineCost = await engineCostRounds(redis, quick ? 1 : 3, quick ? 5_000 : 20_000);
    log('guard cost of plans, on Redis');
    onRedis = await plansOnRedisBench(redis.url, quick ? 2 : 10, quick ? 20_000 : 100_000);
  });
  partial.guard = { ...inMemory, onRedis };
  log('library level, Redis Cluster');
  // Fewer and shorter rounds: ioredis's Cluster client is about 3 times slower per decision.
  const cluster = { rounds: quick ? 1 : 6, total: total / 2, log };
  partial.cluster = await withRedis(clusterRedis, (redis) => libraryBench(redis, CLUSTER, cluster));
  partial.machine = { ...partial.machine, 'load average at the end': loadavg()[0].toFixed(1) };
  const results = { ...partial, durationSeconds: (Date.now() - started) / 1000 } as Results;

  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(
    join(RESULTS, quick ? 'quick.json' : 'latest.json'),
    JSON.stringify(results, null, 2),
  );
  if (!quick) writeReport(results);
  log('\ntargets:');
  for (const v of evaluateTargets(results))
    log(`  ${v.met ? 'met   ' : 'MISSED'} ${v.target}: ${v.measured}`);
  log(`\ndone in ${Math.round(results.durationSeconds)} s`);
}

/** The guard on Express alone (`--guard-express`): medians per request shape. */
async function guardExpressOnly(): Promise<void> {
  const load = { rounds: quick ? 2 : 5, calls: quick ? 20_000 : 50_000 };
  const shapes = await withRedis(standaloneRedis, (redis) => guardExpressBench(redis, load));
  for (const [row, values] of Object.entries(shapes)) {
    log(`${row.padEnd(16)} ${median(values).toFixed(2)} µs of Node CPU per canActivate`);
  }
}

/** The HTTP level alone (`--http`): medians per variant, and ratios to the bare app. */
async function httpOnly(): Promise<void> {
  const http = await withRedis(standaloneRedis, (redis) =>
    httpBench(redis, { rounds: quick ? 1 : 5, duration: 3, log }),
  );
  const rps = (v: HttpVariant) => median(http.runs[v].map((r) => r.requestsPerSecond));
  const cpu = (v: HttpVariant, k: 'appCpuUs' | 'sharedCpuUs') =>
    median(http.runs[v].map((r) => r[k]));
  for (const v of ['none', 'ours', 'throttler'] as const) {
    log(
      `${v.padEnd(9)} ${Math.round(rps(v))} req/s (${(rps(v) / rps('none')).toFixed(3)}× bare), ` +
        `CPU per request ${cpu(v, 'appCpuUs').toFixed(1)} µs alone ` +
        `(+${(cpu(v, 'appCpuUs') - cpu('none', 'appCpuUs')).toFixed(1)}), ` +
        `${cpu(v, 'sharedCpuUs').toFixed(1)} µs shared ` +
        `(+${(cpu(v, 'sharedCpuUs') - cpu('none', 'sharedCpuUs')).toFixed(1)})`,
    );
  }
}

/** The overload guard alone (`--overload`): its figures, and the Markdown of its section. */
async function overloadOnly(): Promise<void> {
  const results = await overloadBench(log);
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'overload.json'), JSON.stringify(results, null, 2));
  log(`\n${overloadMarkdown(results)}`);
}

/** The library rows alone: quick to compare two versions of the engine on a loaded machine. */
async function libraryOnly(): Promise<void> {
  const rounds = quick ? 1 : 5;
  const total = quick ? 20_000 : 50_000;
  const rows = await withRedis(standaloneRedis, (redis) =>
    libraryBench(redis, STANDALONE, { rounds, total, log }),
  );
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(join(RESULTS, 'library.json'), JSON.stringify(rows, null, 2));
  const peer = (figure: (row: Row) => number[]) =>
    Math.max(median(figure(rows.rlf)), median(figure(rows['rlf+ap'])));
  const peerCpu = (figure: (row: Row) => number[]) =>
    Math.min(median(figure(rows.rlf)), median(figure(rows['rlf+ap'])));
  log('\nratios to rate-limiter-flexible (at its better auto-pipelining setting):');
  for (const [id, row] of Object.entries(rows)) {
    if (id.startsWith('rlf')) continue;
    const batch = row.decisionsPerCall ? median(row.decisionsPerCall).toFixed(1) : '-';
    log(
      `  ${id.padEnd(14)} decisions/s ${(median(row.perSecond) / peer((r) => r.perSecond)).toFixed(2)}×, ` +
        `Node CPU ${(median(row.nodeCpuUs) / peerCpu((r) => r.nodeCpuUs)).toFixed(2)}×, ` +
        `Redis CPU ${(median(row.redisCpuUs) / peerCpu((r) => r.redisCpuUs)).toFixed(2)}× ` +
        `(${median(row.redisCpuUs).toFixed(2)} µs), ${row.commandsPerDecision.toFixed(2)} commands, ` +
        `${batch} decisions a call`,
    );
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
