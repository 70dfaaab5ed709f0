// One Nest route on Express per variant, each app in its own process, loaded by wrk (or
// autocannon) in interleaved rounds, with the app's CPU per request served. Then a flood of
// 1,000 requests on a denied route.
import { ChildProcess, fork } from 'node:child_process';
import { Agent, get } from 'node:http';
import { join } from 'node:path';
import { HTTP_VARIANTS, HttpVariant } from './http-app';
import { HttpRun, LoadOptions, loadTool, runHttpLoad } from './http-load';
import { Decide, runLoad } from './load';
import { BenchRedis, commandCounts, countsSince } from './redis';
import { inRoundOrder } from './stats';

interface App {
  variant: HttpVariant;
  port: number;
  child: ChildProcess;
}

/** The next IPC message of an app; rejects if it exits first. */
function nextMessage<T>(app: Pick<App, 'child' | 'variant'>): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number) => reject(new Error(`app ${app.variant} exited with ${code}`));
    app.child.once('exit', onExit);
    app.child.once('message', (message) => {
      app.child.off('exit', onExit);
      resolve(message as T);
    });
  });
}

async function startApp(variant: HttpVariant, redisUrl: string): Promise<App> {
  const child = fork(join(__dirname, 'http-app.js'), [variant, redisUrl], { stdio: 'inherit' });
  // However the bench ends, no app outlives it.
  process.once('exit', () => child.kill('SIGKILL'));
  const { port } = await nextMessage<{ port: number }>({ child, variant });
  return { variant, port, child };
}

async function appCpuUs(app: App): Promise<number> {
  app.child.send('cpu');
  const { user, system } = await nextMessage<NodeJS.CpuUsage>(app);
  return user + system;
}

export interface HttpMeasure extends HttpRun {
  /** CPU µs (user + system) of the app process per request served, loaded alone. */
  appCpuUs: number;
  /** The same, with every app loaded at the same time (analysis.md, "HTTP"). */
  sharedCpuUs: number;
}

/** Loads the apps at the same time: their CPU per request, and each one's run. */
async function measure(tool: string, apps: App[], load: LoadOptions) {
  const cpuBefore = await Promise.all(apps.map(appCpuUs));
  const runs = await Promise.all(
    apps.map((app) => runHttpLoad(tool, `http://127.0.0.1:${app.port}/hello`, load)),
  );
  const cpuAfter = await Promise.all(apps.map(appCpuUs));
  return runs.map((run, i) => ({ ...run, appCpuUs: (cpuAfter[i] - cpuBefore[i]) / run.requests }));
}

/** decide() as a GET of `path` on keep-alive sockets: allowed when the status is 200. */
function getter(port: number, path: string): { decide: Decide; agent: Agent } {
  const agent = new Agent({ keepAlive: true, maxSockets: 50 });
  const decide = () =>
    new Promise<boolean>((resolve, reject) =>
      get({ host: '127.0.0.1', port, path, agent }, (res) =>
        res.resume().on('end', () => resolve(res.statusCode === 200)),
      ).on('error', reject),
    );
  return { decide, agent };
}

export interface HttpResults {
  tool: string;
  load: LoadOptions & { rounds: number };
  runs: Record<HttpVariant, HttpMeasure[]>;
  /** Redis commands for 1,000 requests on an already denied route, and how many were denied. */
  flood: Partial<Record<HttpVariant, { commands: number; denied: number }>>;
}

export async function httpBench(
  redis: BenchRedis,
  { rounds, duration, log }: { rounds: number; duration: number; log: (line: string) => void },
): Promise<HttpResults> {
  const tool = loadTool();
  const load = { connections: 50, duration };
  const variants = Object.keys(HTTP_VARIANTS) as HttpVariant[];
  const apps: App[] = [];
  try {
    for (const variant of variants) apps.push(await startApp(variant, redis.url));
    const runs: HttpResults['runs'] = { none: [], ours: [], throttler: [] };
    // Each round loads every app alone, in interleaved order, then all of them at once.
    // Round 0 warms every app up and is not recorded.
    for (let round = 0; round <= rounds; round++) {
      const alone = [];
      for (const app of inRoundOrder(apps, round)) {
        await redis.onEachMaster('FLUSHALL');
        alone.push({ app, ...(await measure(tool, [app], load))[0] });
      }
      // Twice as long: the CPU target rests on these runs alone.
      const shared = await measure(tool, apps, { ...load, duration: 2 * load.duration });
      if (round === 0) continue;
      for (const { app, ...result } of alone) {
        const sharedCpuUs = shared[apps.indexOf(app)].appCpuUs;
        runs[app.variant].push({ ...result, sharedCpuUs });
        log(
          `  HTTP round ${round} ${app.variant.padEnd(9)} ${Math.round(result.requestsPerSecond)} req/s, ` +
            `app CPU per request ${result.appCpuUs.toFixed(1)} µs alone, ${sharedCpuUs.toFixed(1)} µs shared`,
        );
      }
    }
    const flood: HttpResults['flood'] = {};
    for (const app of apps.filter((a) => a.variant !== 'none')) {
      const { decide, agent } = getter(app.port, '/flood');
      await runLoad(decide, { total: 2, inFlight: 1, keys: [''] }); // allowed, then denied
      const before = await commandCounts(redis);
      const { allowed } = await runLoad(decide, { total: 1000, inFlight: 50, keys: [''] });
      agent.destroy();
      flood[app.variant] = {
        commands: countsSince(before, await commandCounts(redis)).all,
        denied: 1000 - allowed,
      };
      log(`  HTTP flood ${app.variant}: ${JSON.stringify(flood[app.variant])}`);
    }
    return { tool, load: { ...load, rounds }, runs, flood };
  } finally {
    for (const app of apps) {
      if (app.child.connected) app.child.send('close');
      setTimeout(() => app.child.kill('SIGKILL'), 5000).unref();
    }
  }
}
