'use strict';
// Section 2: one Nest route on Express under autocannon (a separate process), per variant,
// interleaved rounds, medians reported. Also a flood of 1,000 requests on a denied route.
const { fork } = require('node:child_process');
const http = require('node:http');
const { join } = require('node:path');
const { track, stop } = require('./procs');
const {
  median,
  parseCommandStats,
  diffCommandStats,
  totalCalls,
  SCRIPT_COMMANDS,
} = require('./stats');

const VARIANTS = {
  none: 'no limiter',
  ours: 'nestjs-limiter guard (@CountLimit, module defaults)',
  'ours-autopipelining': 'nestjs-limiter guard, client with auto-pipelining',
  throttler: '@nestjs/throttler + @nest-lab/throttler-storage-redis',
};
const LOAD = { connections: 50, duration: 10, pipelining: 1 };

function once(child, what) {
  return new Promise((resolve, reject) => {
    const onExit = (code) => reject(new Error(`${what} exited with ${code} before answering`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      if (message.error) reject(new Error(`${what}: ${message.error}`));
      else resolve(message);
    });
  });
}

async function startApp(variant, redisUrl) {
  const child = track(
    fork(join(__dirname, 'http-app.js'), [variant, redisUrl], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  const { port } = await once(child, `app ${variant}`);
  return { variant, port, child };
}

async function closeApp(app) {
  if (app.child.connected) app.child.send('close');
  const timer = setTimeout(() => app.child.kill('SIGKILL'), 5000);
  await stop(app.child, 5000);
  clearTimeout(timer);
}

async function autocannon(port, path, { duration = LOAD.duration } = {}) {
  const options = { url: `http://127.0.0.1:${port}${path}`, ...LOAD, duration };
  const child = track(
    fork(join(__dirname, 'http-load.js'), [JSON.stringify(options)], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    }),
  );
  try {
    return await once(child, 'autocannon');
  } finally {
    await stop(child);
  }
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

async function httpBench(redis, { rounds = 3, duration = LOAD.duration, log = console.log } = {}) {
  const apps = [];
  try {
    for (const variant of Object.keys(VARIANTS)) apps.push(await startApp(variant, redis.url));
    log(`  warm-up (${apps.length} apps, 2 s each)`);
    for (const app of apps) await autocannon(app.port, '/hello', { duration: 2 });

    const runs = {};
    for (let round = 1; round <= rounds; round++) {
      for (const app of apps) {
        redis.cli('FLUSHALL');
        const result = await autocannon(app.port, '/hello', { duration });
        (runs[app.variant] ??= []).push(result);
        log(
          `  round ${round} ${app.variant.padEnd(24)} ${Math.round(result.requestsPerSecond)} req/s p99 ${result.p99Ms} ms non-2xx ${result.non2xx} errors ${result.errors}`,
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
        `  flood ${app.variant.padEnd(24)} statuses ${JSON.stringify(statuses)}: ${flood[app.variant].commands} Redis commands per 1000`,
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
        non2xx: list.reduce((sum, r) => sum + r.non2xx, 0),
        errors: list.reduce((sum, r) => sum + r.errors + r.timeouts, 0),
      };
    }
    return { load: { ...LOAD, duration, rounds, route: 'GET /hello (Express)' }, results, flood };
  } finally {
    await Promise.all(apps.map(closeApp));
  }
}

module.exports = { httpBench, VARIANTS };
