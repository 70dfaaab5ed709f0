'use strict';
// The Redis-side ceiling: redis-benchmark running our own scripts (the Lua source from
// the built library) by EVALSHA, 50 connections, 16 commands pipelined per connection.
const { capture } = require('./procs');
const { fixedWindow } = require('../lib/algorithms/fixed-window/fixed-window.algorithm');
const { fixedWindowParams } = require('../lib/algorithms/fixed-window/fixed-window.model');
const { tokenBucket } = require('../lib/algorithms/token-bucket/token-bucket.algorithm');
const {
  tokenBucketParams,
  tokenBucketRequest,
} = require('../lib/algorithms/token-bucket/token-bucket.model');
const { HIGH_LIMIT, PERIOD_S } = require('./contenders');

/** The same script arguments the library sends for the limits the library section uses. */
function scripts() {
  const fw = fixedWindowParams({ limit: HIGH_LIMIT, period: PERIOD_S });
  const tb = tokenBucketParams({ rate: 1e6, burst: 1 });
  return {
    counter: { lua: fixedWindow.lua, argv: ['', ...fixedWindow.paramsArgv(fw)] },
    tokenBucket: {
      lua: tokenBucket.lua,
      argv: [
        '',
        ...tokenBucket.paramsArgv(tb),
        ...tokenBucket.requestArgv(tokenBucketRequest(tb, 1, 0)),
      ],
    },
  };
}

function loadScripts(redis) {
  const loaded = {};
  for (const [name, script] of Object.entries(scripts())) {
    loaded[name] = { sha: redis.cli('SCRIPT', 'LOAD', script.lua), argv: script.argv };
  }
  return loaded;
}

async function redisBenchmark(
  port,
  { sha, argv },
  { requests = 100_000, clients = 50, pipeline = 16, keys = 10_000 } = {},
) {
  const args = [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-n',
    String(requests),
    '-c',
    String(clients),
    '-P',
    String(pipeline),
    '-r',
    String(keys),
    '--csv',
    'EVALSHA',
    sha,
    '1',
    'bench:rb:__rand_int__',
    ...argv,
  ];
  const { code, out, err } = await capture('redis-benchmark', args);
  // --csv: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
  const row = out
    .trim()
    .split('\n')
    .pop()
    .split(',')
    .map((cell) => cell.replace(/"/g, ''));
  const perSecond = Number(row[1]);
  if (code !== 0 || !Number.isFinite(perSecond)) {
    throw new Error(`redis-benchmark failed (${code}): ${err || out}`);
  }
  return { decisions: requests, perSecond, p50Ms: Number(row[4]), p99Ms: Number(row[6]) };
}

module.exports = { loadScripts, redisBenchmark };
