'use strict';
// Section 2: one Nest route on Express under a load generator in another process (wrk,
// or autocannon without it), per variant, interleaved rounds, medians reported. Also a
// flood of 1,000 requests on a denied route.
const { fork } = require('node:child_process');
const http = require('node:http');
const { join } = require('node:path');
const { track, stop, reply } = require('./procs');
const { loadTool, runHttpLoad } = require('./http-load');
const {
  median,
  ROUND_ORDER,
  inRoundOrder,
  parseCommandStats,
  diffCommandStats,
  totalCalls,
  SCRIPT_COMMANDS,
} = require('./stats');

const VARIANTS = {
  none: 'no limiter',
  ours: 'nestjs-limiter guard (@CountLimit, module defaults)',
  'ours-ioredis': 'nestjs-limiter guard, scripts through ioredis (dedicatedConnection: false)',
  throttler: '@nestjs/throttler + @nest-lab/throttler-storage-redis',
};
const LOAD = { connections: 50, duration: 4, pipelining: 1 };

async function startApp(variant, redisUrl) {
  const child = track(
    fork(join(__dirname, 'http-app.js'), [variant, redisUrl], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const { port } = await reply(child, `app ${variant}`);
  return { variant, port, child };
}

async function closeApp(app) {
  if (app.child.connected) app.child.send('close');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), 5000);
  await stop(app.child, 5000);
  clearTimeout(timer);
}

/** CPU µs (user + system) the app process has used so far. */
async function appCpuUs(app) {
  app.child.send('cpu');
  const { user, system } = await reply(app.child, `app ${app.variant}`);
  return user + system;
}

/**
 * One measured run, with the app's CPU per request served: on 2 shared cores it moves
 * less from run to run than requests/s, which also depends on what else gets the cores.
 */
async function measure(tool, app, duration) {
  const cpuBefore = await appCpuUs(app);
  const result = await runHttpLoad(tool, `http://127.0.0.1:${app.port}/hello`, {
    ...LOAD,
    duration,
  });
  result.appCpuUsPerRequest = ((await appCpuUs(app)) - cpuBefore) / result.requests;
  return result;
}

/** `count` GETs over keep-alive sockets, `inFlight` at a time; returns status counts. */
async function hammer(port, path, count, inFlight = 50) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
  const statuses = {};
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent }, (res) => {
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next++ < count) await one();
    }),
  );
  agent.destroy();
  return statuses;
}

async function httpBench(redis, { rounds = 16, duration = LOAD.duration, log = console.log } = {}) {
  const tool = loadTool();
  const apps = [];
  try {
    for (const variant of Object.keys(VARIANTS)) apps.push(await startApp(variant, redis.url));
    log(`  warm-up (${apps.length} apps, 2 s each, ${tool.name})`);
    for (const app of apps) await measure(tool, app, 2);

    const runs = {};
    for (let round = 1; round <= rounds; round++) {
      for (const app of inRoundOrder(apps, round)) {
        redis.cli('FLUSHALL');
        const result = await measure(tool, app, duration);
        (runs[app.variant] ??= []).push(result);
        log(
          `  round ${round} ${app.variant.padEnd(14)} ${Math.round(result.requestsPerSecond)} req/s, app CPU ${result.appCpuUsPerRequest.toFixed(0)} µs per request, p99 ${result.p99Ms} ms, non-2xx ${result.non2xx}, errors ${result.errors + result.timeouts}`,
        );
      }
    }

    const flood = {};
    for (const app of apps.filter((a) => a.variant !== 'none')) {
      redis.cli('FLUSHALL');
      // One allowed request, then one denied: the key is now denied (and, for us, known denied).
      const first = await hammer(app.port, '/flood', 2, 1);
      const before = parseCommandStats(redis.cli('INFO', 'commandstats'));
      const statuses = await hammer(app.port, '/flood', 1000);
      const diff = diffCommandStats(before, parseCommandStats(redis.cli('INFO', 'commandstats')));
      flood[app.variant] = {
        label: VARIANTS[app.variant],
        first,
        statuses,
        commands: totalCalls(diff),
        roundTrips: totalCalls(diff, (name) => SCRIPT_COMMANDS.has(name)),
      };
      log(
        `  flood ${app.variant.padEnd(14)} statuses ${JSON.stringify(statuses)}: ${flood[app.variant].commands} Redis commands per 1000`,
      );
    }

    const results = {};
    for (const [variant, label] of Object.entries(VARIANTS)) {
      const list = runs[variant];
      results[variant] = {
        label,
        requestsPerSecond: median(list.map((r) => r.requestsPerSecond)),
        p50Ms: median(list.map((r) => r.p50Ms)),
        p99Ms: median(list.map((r) => r.p99Ms)),
        rounds: list.map((r) => Math.round(r.requestsPerSecond)),
        appCpuUsPerRequest: median(list.map((r) => r.appCpuUsPerRequest)),
        non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
        errors: list.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      };
    }
    return {
      load: {
        order: ROUND_ORDER,
        tool: tool.name,
        toolVersion: tool.version,
        ...LOAD,
        duration,
        rounds,
        route: 'GET /hello (Express)',
      },
      results,
      flood,
    };
  } finally {
    await Promise.all(apps.map(closeApp));
  }
}

module.exports = { httpBench, VARIANTS };
