// The guard's CPU per HTTP request, on its own (not part of `npm run bench`):
//   node bench/dist/bench/guard-http.js [rounds] [batch] [headers] [--profile] [--compare=DIR]
// One app on the memory store and one on Redis (guard-http-app.ts), each in its own process.
// Each round sends every route of every app `batch` requests, routes and apps in interleaved
// order, two in flight on keep-alive sockets (so that no route finds more requests per
// event-loop turn than another, as a saturating load would give the routes that wait for
// Redis); many short rounds, so that the load of the rest of the machine falls on every route
// alike. The figure is the app's process.cpuUsage() over the requests of a route, and the
// guard's cost the difference to the app's own route without a limit. With
// --profile each app runs under `node --cpu-prof` (its profile is written when it closes, in
// bench/results/). With --compare=DIR the apps of another build (DIR/bench/dist/bench, a copy
// of a checkout with its own lib/ and package.json) run beside these, in the same rounds:
// on a loaded machine only figures taken side by side compare.
import { ChildProcess, fork } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, get } from 'node:http';
import { GUARD_ROUTES, GuardRoute } from './guard-http-app';
import { standaloneRedis } from './redis';
import { inRoundOrder, median } from './stats';

// This file runs as bench/dist/bench/guard-http.js.
const RESULTS = join(__dirname, '..', '..', '..', 'bench', 'results');

interface App {
  name: string;
  agent: Agent;
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
  const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  return { name, agent, routes, port, child };
}

async function cpuUs(app: App): Promise<number> {
  app.child.send('cpu');
  const { user, system } = await nextMessage<NodeJS.CpuUsage>(app.child);
  return user + system;
}

/** Requests in flight per app: few, so no route finds more requests per event-loop turn. */
const IN_FLIGHT = 2;

/** Sends `amount` GETs of `path`, IN_FLIGHT at a time on keep-alive sockets; throws on non-200. */
async function load(agent: Agent, port: number, path: string, amount: number): Promise<void> {
  let sent = 0;
  const one = () =>
    new Promise<void>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path, agent }, (res) => {
        res.resume().on('end', () => {
          if (res.statusCode === 200) resolve();
          else reject(new Error(`${path}: status ${res.statusCode}`));
        });
      }).on('error', reject),
    );
  const worker = async () => {
    while (sent++ < amount) await one();
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** The app's CPU µs over `amount` requests of one route. */
async function cpuOf(app: App, route: GuardRoute, amount: number): Promise<number> {
  const before = await cpuUs(app);
  await load(app.agent, app.port, `/${route}`, amount);
  return (await cpuUs(app)) - before;
}

async function main() {
  const [rounds = 40, batch = 250] = process.argv.slice(2, 4).map(Number);
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
    // CPU µs and requests per route, summed over the rounds; and each round's µs per request.
    const totals = new Map<string, { cpuUs: number; requests: number; rounds: number[] }>();
    // Round 0 warms every route up and is not recorded.
    for (let round = 0; round <= rounds; round++) {
      for (const app of inRoundOrder(apps, round)) {
        for (const route of inRoundOrder(app.routes, round)) {
          const us = await cpuOf(app, route, batch);
          if (round === 0) continue;
          const name = `${app.name} /${route}`;
          const total = totals.get(name) ?? { cpuUs: 0, requests: 0, rounds: [] };
          total.cpuUs += us;
          total.requests += batch;
          total.rounds.push(us / batch);
          totals.set(name, total);
        }
      }
    }
    console.log(`headers ${headers}, ${rounds} rounds of ${batch} requests per route`);
    for (const app of apps) {
      const bare = totals.get(`${app.name} /none`)!;
      const bareUs = bare.cpuUs / bare.requests;
      for (const route of app.routes) {
        const total = totals.get(`${app.name} /${route}`)!;
        const us = total.cpuUs / total.requests;
        const added = total.rounds.map((value, i) => value - bare.rounds[i]);
        console.log(
          `${`${app.name} /${route}`.padEnd(18)} ${us.toFixed(1).padStart(6)} µs/request` +
            ` (${(us / bareUs).toFixed(2)}× bare), added ${(us - bareUs).toFixed(1)} µs` +
            ` (median of rounds ${median(added).toFixed(1)})`,
        );
      }
    }
  } finally {
    for (const app of apps) {
      app.agent.destroy();
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
