'use strict';
// `npm run bench` (after the build): starts redis-server, runs the four sections with the
// contenders interleaved, writes bench/results/latest.json, BENCHMARKS.md and
// bench/http-chart.svg, and stops every process it started.
//   node bench/run.js --quick    one short round of everything; writes results/quick.json only
//   node bench/run.js --report   rewrites BENCHMARKS.md and the chart from results/latest.json
const { mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { startRedis } = require('./redis');
const { killAll } = require('./procs');

const ROOT = join(__dirname, '..');
const quick = process.argv.includes('--quick');
const log = (...args) => console.log(...args);

function version(name) {
  return JSON.parse(
    readFileSync(require.resolve(`${name}/package.json`, { paths: [ROOT] }), 'utf8'),
  ).version;
}

function machine(redis) {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  return {
    nproc: os.availableParallelism ? os.availableParallelism() : os.cpus().length,
    cpuModel: (/^model name\s*:\s*(.+)$/m.exec(cpuinfo) ?? [
      ,
      os.cpus()[0]?.model ?? 'unknown',
    ])[1].trim(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    redis: /redis_version:(\S+)/.exec(redis.cli('INFO', 'server'))[1],
    packages: Object.fromEntries(
      [
        'ioredis',
        'rate-limiter-flexible',
        '@nestjs/throttler',
        '@nest-lab/throttler-storage-redis',
        '@nestjs/core',
        '@nestjs/platform-express',
        'autocannon',
      ].map((name) => [name, version(name)]),
    ),
  };
}

function writeReport(results) {
  const { renderMarkdown, httpChart } = require('./report');
  if (results.http) writeFileSync(join(__dirname, 'http-chart.svg'), httpChart(results.http));
  writeFileSync(join(ROOT, 'BENCHMARKS.md'), renderMarkdown(results));
}

async function main() {
  if (process.argv.includes('--report')) {
    writeReport(JSON.parse(readFileSync(join(__dirname, 'results', 'latest.json'), 'utf8')));
    log('BENCHMARKS.md and bench/http-chart.svg rewritten from bench/results/latest.json');
    return;
  }
  const started = Date.now();
  const { libraryBench } = require('./library');
  const { floodBench } = require('./flood');
  const { memoryBench } = require('./memory');
  const lib = require('../lib');
  const redis = await startRedis();
  log(`redis-server on 127.0.0.1:${redis.port}${quick ? ' (quick run)' : ''}`);
  const results = { startedAt: new Date(started).toISOString(), quick, machine: machine(redis) };
  try {
    log('1. library level');
    results.library = await libraryBench(redis, { rounds: quick ? 1 : 6, log });
    log('1b. JavaScript cost per decision (stub client)');
    results.overhead = await require('./overhead').overheadBench({ rounds: quick ? 1 : 3, log });
    log('3. flood');
    results.flood = await floodBench(redis, { log });
    log('4. memory');
    results.memory = await memoryBench(redis, { log });
    if (typeof lib.RateLimiterModule === 'function' && typeof lib.CountLimit === 'function') {
      log('2. HTTP level');
      const { httpBench } = require('./http');
      results.http = await httpBench(redis, {
        rounds: quick ? 2 : 16,
        duration: quick ? 3 : 4,
        log,
      });
    } else {
      results.httpSkipped =
        'Not run: the built library exports no RateLimiterModule / CountLimit yet.';
      log(results.httpSkipped);
    }
  } finally {
    await redis.stop();
    killAll();
  }
  results.durationSeconds = (Date.now() - started) / 1000;

  const { evaluateTargets } = require('./targets');
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(
    join(__dirname, 'results', quick ? 'quick.json' : 'latest.json'),
    JSON.stringify(results, null, 2) + '\n',
  );
  if (!quick) writeReport(results);
  log('\ntargets:');
  for (const target of evaluateTargets(results))
    log(`  ${target.met ? 'met   ' : 'MISSED'} ${target.target}: ${target.measured}`);
  log(
    `\ndone in ${results.durationSeconds.toFixed(0)} s${quick ? '' : ': BENCHMARKS.md, bench/http-chart.svg, bench/results/latest.json'}`,
  );
}

main().catch((error) => {
  console.error(error);
  killAll();
  process.exit(1);
});
