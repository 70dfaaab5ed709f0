// The guard's CPU per HTTP request, on its own (not part of `npm run bench`):
//   node bench/dist/bench/guard-http.js [rounds] [requests] [headers] [--profile] [--compare=DIR]
// One app on the memory store and one on Redis (guard-http-app.ts), each in its own process,
// each route loaded with a fixed number of requests by autocannon at a fixed rate the app
// keeps up with, routes and apps in interleaved order; the figure is the app's
// process.cpuUsage() over the requests it served, and the guard's cost the difference to the
// app's own route without a limit. A fixed rate, not a saturating load: a route that answers
// later (one Redis round trip) would otherwise find more requests per event-loop turn and
// look cheaper than the bare route. With
// --profile each app runs under `node --cpu-prof` (its profile is written when it closes, in
// bench/results/). With --compare=DIR the apps of another build (DIR/bench/dist/bench, a copy
// of a checkout with its own lib/ and package.json) run beside these, in the same rounds:
// on a loaded machine only figures taken side by side compare.
import { ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { GUARD_ROUTES, GuardRoute } from './guard-http-app';
import { standaloneRedis } from './redis';
import { inRoundOrder, median } from './stats';

// This file runs as bench/dist/bench/guard-http.js.
const RESULTS = join(__dirname, '..', '..', '..', 'bench', 'results');

interface App {
  name: string;
  routes: readonly GuardRoute[];
  port: number;
  child: ChildProcess;
}

function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`app exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (message) => {
      child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

async function startApp(
  name: string,
  args: string[],
  { profile, dir = __dirname }: { profile: boolean; dir?: string },
): Promise<App> {
  const execArgv = profile ? ['--cpu-prof', `--cpu-prof-dir=${RESULTS}`] : [];
  const child = fork(join(dir, 'guard-http-app.js'), args, { stdio: 'inherit', execArgv });
  process.once('exit', () => child.kill('SIGKILL'));
  const { port } = await nextMessage<{ port: number }>(child);
  const routes = name.startsWith('memory')
    ? GUARD_ROUTES.filter((r) => r !== 'rate')
    : GUARD_ROUTES;
  return { name, routes, port, child };
}

async function cpuUs(app: App): Promise<number> {
  app.child.send('cpu');
  const { user, system } = await nextMessage<NodeJS.CpuUsage>(app.child);
  return user + system;
}

/** Requests per second: well below what the app serves on a loaded 2-core machine. */
const RATE = 1500;

/** The app's CPU µs per request over `amount` requests of one route. */
async function cpuPerRequest(app: App, route: GuardRoute, amount: number): Promise<number> {
  const before = await cpuUs(app);
  const result = await autocannon({
    url: `http://127.0.0.1:${app.port}/${route}`,
    connections: 10,
    overallRate: RATE,
    amount,
  });
  const after = await cpuUs(app);
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${app.name} /${route}: ${failures} failures`);
  return (after - before) / result.requests.total;
}

async function main() {
  const [rounds = 6, amount = 6_000] = process.argv.slice(2, 4).map(Number);
  const headers = process.argv[4] && !process.argv[4].startsWith('--') ? process.argv[4] : 'legacy';
  const profile = process.argv.includes('--profile');
  const compare = process.argv.find((arg) => arg.startsWith('--compare='))?.slice(10);
  mkdirSync(RESULTS, { recursive: true });
  const redis = await standaloneRedis();
  const apps: App[] = [];
  try {
    apps.push(await startApp('memory', ['memory', headers], { profile }));
    apps.push(await startApp('redis', ['redis', headers, redis.url], { profile }));
    if (compare) {
      const dir = join(compare, 'bench', 'dist', 'bench');
      apps.push(await startApp('memory-cmp', ['memory', headers], { profile, dir }));
      apps.push(await startApp('redis-cmp', ['redis', headers, redis.url], { profile, dir }));
    }
    const figures = new Map<string, number[]>();
    // Round 0 warms every route up and is not recorded.
    for (let round = 0; round <= rounds; round++) {
      for (const app of inRoundOrder(apps, round)) {
        for (const route of inRoundOrder(app.routes, round)) {
          const us = await cpuPerRequest(app, route, amount);
          if (round === 0) continue;
          const name = `${app.name} /${route}`;
          figures.set(name, [...(figures.get(name) ?? []), us]);
        }
      }
    }
    console.log(`headers ${headers}, ${rounds} rounds of ${amount} requests per route`);
    for (const app of apps) {
      const bare = figures.get(`${app.name} /none`)!;
      for (const route of app.routes) {
        const us = figures.get(`${app.name} /${route}`)!;
        const added = us.map((value, i) => value - bare[i]);
        console.log(
          `${`${app.name} /${route}`.padEnd(18)} ${median(us).toFixed(1).padStart(6)} µs/request` +
            ` (${(median(us) / median(bare)).toFixed(2)}× bare), added ${median(added).toFixed(1)} µs;` +
            ` rounds ${us.map((value) => value.toFixed(0)).join(' ')}`,
        );
      }
    }
  } finally {
    for (const app of apps) {
      app.child.send('close');
      await new Promise((resolve) => app.child.once('exit', resolve));
    }
    await redis.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
