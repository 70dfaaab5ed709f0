// The overload guard (`npm run bench -- --overload`): one app in a process of its own whose
// handlers call a simulated downstream of K calls at once, S ms each (capacity C = K / S),
// offered 4 × C open-loop (20 % critical, 80 % sheddable) by a load generator in a process
// of its own, for three handlers in turn: no guard, a static @ConcurrencyLimit, and
// @AdaptiveConcurrencyLimit. Mid-run the downstream's service time triples.
import { call } from '../test/helpers/http';
import { ChildApp, startChildApp } from '../test/helpers/child-app';
import { LoadSummary, openLoop, percentile, summarize } from '../test/helpers/overload-load';

export const OVERLOAD_SETUP = {
  servers: 4,
  serviceMs: 200,
  /** The static limit: the adaptive one's starting point, a guess the load never corrects. */
  staticMax: 20,
  seconds: 30,
  slowAtSecond: 12,
  /** Seconds after the slow-down that recovery may take. */
  recoverySeconds: 5,
};
const ROUTES = ['adaptive', 'static', 'none'] as const;
type Route = (typeof ROUTES)[number];

export interface OverloadRow {
  route: Route;
  /** The adaptive limit every half second of the run (empty for the other handlers). */
  limits: number[];
  /** Before the slow-down (from second 3, once the limit has been learned). */
  steady: LoadSummary;
  /** From `recoverySeconds` after the slow-down to the end. */
  slowed: LoadSummary;
  /** Seconds after the slow-down until a second's critical p99 is ≤ 3× the new unloaded p99. */
  recoveredAfterS: number;
  /** Twenty requests one at a time once the load stopped: how many passed, and their p99. */
  afterLoad: { passed: number; p99Ms: number };
}

export interface OverloadResults {
  setup: typeof OVERLOAD_SETUP;
  capacityPerSecond: number;
  unloadedP99Ms: number;
  slowedUnloadedP99Ms: number;
  rows: OverloadRow[];
}

const setServiceMs = (app: ChildApp, ms: number) =>
  call(app.port, { method: 'PUT', path: `/downstream?serviceMs=${ms}` });

/** p99 of requests sent at a quarter of capacity, one route: the latency with no queue. */
async function unloadedP99(app: ChildApp, capacity: number): Promise<number> {
  const samples = await openLoop({
    url: `http://127.0.0.1:${app.port}/none`,
    rate: capacity / 4,
    seconds: 5,
  });
  return percentile(
    samples.filter((s) => s.status === 200).map((s) => s.latencyMs),
    0.99,
  );
}

async function afterLoad(app: ChildApp, route: Route) {
  const latencies: number[] = [];
  let passed = 0;
  for (let i = 0; i < 20; i++) {
    const reply = await call(app.port, { path: `/${route}` });
    if (reply.status === 200) passed++;
    latencies.push(reply.elapsedMs);
  }
  return { passed, p99Ms: percentile(latencies, 0.99) };
}

/** The app in a process of its own; each handler gets a fresh one, so no backlog of one slows the next. */
const startOverloadApp = () =>
  startChildApp(
    'overload-app.ts',
    {
      SERVERS: String(OVERLOAD_SETUP.servers),
      SERVICE_MS: String(OVERLOAD_SETUP.serviceMs),
      STATIC_MAX: String(OVERLOAD_SETUP.staticMax),
    },
    120_000,
  );

async function withApp<T>(run: (app: ChildApp) => Promise<T>): Promise<T> {
  const app = await startOverloadApp();
  try {
    return await run(app);
  } finally {
    await app.stop();
  }
}

async function loadedRun(app: ChildApp, route: Route, unloaded3: number): Promise<OverloadRow> {
  const setup = OVERLOAD_SETUP;
  const capacity = (setup.servers * 1000) / setup.serviceMs;
  const samples = await openLoop({
    url: `http://127.0.0.1:${app.port}/${route}`,
    rate: 4 * capacity,
    seconds: setup.seconds,
    slowAt: { second: setup.slowAtSecond, url: `/downstream?serviceMs=${3 * setup.serviceMs}` },
  });
  let recoveredAfterS = Infinity;
  for (let s = setup.slowAtSecond; s < setup.seconds; s++) {
    if (summarize(samples, s, s + 1).criticalP99Ms <= 3 * unloaded3) {
      recoveredAfterS = s - setup.slowAtSecond;
      break;
    }
  }
  const gates = (await call(app.port, { path: '/gates' })).body as {
    limit: number;
    history: { limit: number }[];
  }[];
  return {
    route,
    limits: route === 'adaptive' ? (gates[0]?.history.map((point) => point.limit) ?? []) : [],
    steady: summarize(samples, 3, setup.slowAtSecond),
    slowed: summarize(samples, setup.slowAtSecond + setup.recoverySeconds, setup.seconds),
    recoveredAfterS,
    afterLoad: await afterLoad(app, route),
  };
}

export async function overloadBench(log: (line: string) => void): Promise<OverloadResults> {
  const setup = OVERLOAD_SETUP;
  const capacity = (setup.servers * 1000) / setup.serviceMs;
  const [unloadedP99Ms, slowedUnloadedP99Ms] = await withApp(async (app) => {
    const before = await unloadedP99(app, capacity);
    await setServiceMs(app, 3 * setup.serviceMs);
    return [before, await unloadedP99(app, capacity / 3)];
  });
  log(`unloaded p99 ${unloadedP99Ms.toFixed(0)} ms, slowed ${slowedUnloadedP99Ms.toFixed(0)} ms`);
  const rows: OverloadRow[] = [];
  for (const route of ROUTES) {
    const row = await withApp((app) => loadedRun(app, route, slowedUnloadedP99Ms));
    log(`${route}: ${JSON.stringify(row)}`);
    rows.push(row);
  }
  return { setup, capacityPerSecond: capacity, unloadedP99Ms, slowedUnloadedP99Ms, rows };
}

const pct = (n: number) => `${(100 * n).toFixed(1)} %`;
const x = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : 'n/a');
/** A p99 of no successful request: every one failed or timed out. */
const p99 = (n: number | null) =>
  n === null || !Number.isFinite(n) ? 'none passed' : n.toFixed(0);

/** The run as Markdown: one row per handler, then the targets with their ratios. */
export function overloadMarkdown(results: OverloadResults): string {
  const { rows, capacityPerSecond: c, unloadedP99Ms: u, slowedUnloadedP99Ms: u3 } = results;
  const by = Object.fromEntries(rows.map((row) => [row.route, row])) as Record<Route, OverloadRow>;
  const table = rows.map(
    (r) =>
      `| ${r.route} | ${pct(r.steady.criticalSuccess)} | ${p99(r.steady.criticalP99Ms)} | ` +
      `${x(r.steady.goodputPerSecond / c)} | ${pct(r.slowed.criticalSuccess)} | ` +
      `${p99(r.slowed.criticalP99Ms)} | ${x(r.slowed.goodputPerSecond / (c / 3))} | ` +
      `${Number.isFinite(r.recoveredAfterS) ? r.recoveredAfterS : 'no'} | ${r.afterLoad.passed}/20 |`,
  );
  const guard = by.adaptive;
  const targets: [string, string, boolean][] = [
    [
      'critical success ≥ 99 %',
      pct(guard.steady.criticalSuccess),
      guard.steady.criticalSuccess >= 0.99,
    ],
    [
      'critical p99 ≤ 3× unloaded p99',
      x(guard.steady.criticalP99Ms / u),
      guard.steady.criticalP99Ms <= 3 * u,
    ],
    [
      // Without a guard critical requests may all time out: theirs counts them, at the time they took.
      'critical p99 ≤ 0.5× no guard’s (its every critical request, timed out included)',
      x(guard.steady.criticalP99Ms / by.none.steady.criticalP99AnyMs),
      guard.steady.criticalP99Ms <= 0.5 * by.none.steady.criticalP99AnyMs,
    ],
    [
      'goodput ≥ 85 % of C',
      x(guard.steady.goodputPerSecond / c),
      guard.steady.goodputPerSecond >= 0.85 * c,
    ],
    ['slowed: recovered within 5 s', `${guard.recoveredAfterS} s`, guard.recoveredAfterS <= 5],
    [
      'slowed: critical p99 ≤ 3× new unloaded p99',
      x(guard.slowed.criticalP99Ms / u3),
      guard.slowed.criticalP99Ms <= 3 * u3,
    ],
    [
      'slowed: goodput ≥ 80 % of C/3',
      x(guard.slowed.goodputPerSecond / (c / 3)),
      guard.slowed.goodputPerSecond >= 0.8 * (c / 3),
    ],
    [
      'slowed: critical p99 ≤ 0.5× the static limit’s',
      x(guard.slowed.criticalP99Ms / by.static.slowed.criticalP99Ms),
      guard.slowed.criticalP99Ms <= 0.5 * by.static.slowed.criticalP99Ms,
    ],
    [
      'after the load: requests pass at once',
      `${guard.afterLoad.passed}/20`,
      guard.afterLoad.passed === 20,
    ],
  ];
  return [
    `K = ${results.setup.servers}, S = ${results.setup.serviceMs} ms (C = ${c}/s), offered ${4 * c}/s for ` +
      `${results.setup.seconds} s, S tripled at ${results.setup.slowAtSecond} s; static max ` +
      `${results.setup.staticMax}; unloaded p99 ${u.toFixed(0)} ms, ${u3.toFixed(0)} ms slowed.`,
    '',
    '| handler | critical ok | critical p99 ms | goodput ÷ C | slowed: critical ok | slowed: critical p99 ms | slowed: goodput ÷ C/3 | recovered after s | after load |',
    '|---|---|---|---|---|---|---|---|---|',
    ...table,
    '',
    '| target | measured | verdict |',
    '|---|---|---|',
    ...targets.map(
      ([target, measured, met]) => `| ${target} | ${measured} | ${met ? 'met' : '**missed**'} |`,
    ),
  ].join('\n');
}
