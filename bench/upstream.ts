// `npm run bench -- --upstream`: the calls of a fleet to an API that limits it (the mock
// upstream of the tests: 100 calls a second, 10 at once, 429 beyond), through nestjs-limiter's
// upstream budget, Bottleneck's Redis clustering at the same budget, and no limiter. Caller
// processes and the mock are the tests' (test/helpers/upstream-fleet.ts); writes
// bench/results/upstream.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCallers, startMockUpstream } from '../test/helpers/upstream-fleet';
import { commandCounts, countsSince, standaloneRedis } from './redis';

type Arrival = [at: number, status: number, tenant: string];
type Contender = 'nestjs-limiter' | 'bottleneck' | 'none';
const RATE = 100;
const CAPACITY = 10;

const envOf = (contender: Contender): Record<string, string> =>
  contender === 'bottleneck'
    ? { BOTTLENECK: 'true' }
    : contender === 'none'
      ? { NO_LIMITER: 'true' }
      : {};

function figures(log: Arrival[], from: number, to: number) {
  const part = log.filter(([at]) => at >= from && at < to);
  const ok = part.filter(([, status]) => status === 200).length;
  const refused = part.length - ok;
  return {
    goodputPerSecond: Math.round((ok / ((to - from) / 1000)) * 10) / 10,
    refusedShare: part.length ? Math.round((refused / part.length) * 10_000) / 10_000 : 0,
    calls: part.length,
  };
}

interface Scenario {
  name: string;
  processes: number;
  callers: number;
  durationMs: number;
  mock?: Record<string, string>;
  /** Steps on the mock, by milliseconds after the start. */
  steps?: Array<[atMs: number, settings: Record<string, string | number>]>;
  tenants?: Array<[tenant: string, weight: number]>;
  measure(log: Arrival[], startAt: number): object;
}

export function upstreamScenarios(quick: boolean): Scenario[] {
  const long = (ms: number) => (quick ? ms / 3 : ms);
  return [
    {
      name: `8 processes x 64 callers, ${long(15_000) / 1000} s`,
      processes: 8,
      callers: 64,
      durationMs: long(15_000),
      measure: (log, startAt) => figures(log, startAt + 1000, startAt + long(15_000)),
    },
    {
      name: 'the limit drops silently to 50/s at 5 s; from 10 s after',
      processes: 8,
      callers: 64,
      durationMs: 25_000,
      steps: [[5000, { rate: 50 }]],
      measure: (log, startAt) => figures(log, startAt + 15_000, startAt + 25_000),
    },
    {
      name: 'the limit drops to 50/s at 5 s, said in X-RateLimit headers; from 2 s after',
      processes: 8,
      callers: 64,
      durationMs: 15_000,
      mock: { HEADERS: 'x' },
      steps: [[5000, { rate: 50 }]],
      measure: (log, startAt) => figures(log, startAt + 7000, startAt + 15_000),
    },
    {
      name: 'one 429 Retry-After: 5 at 5 s',
      processes: 8,
      callers: 64,
      durationMs: 14_000,
      steps: [[5000, { retryAfter: 5 }]],
      measure: (log, startAt) => {
        const pausedAt = log.find(([at, status]) => status === 429 && at >= startAt + 4900)?.[0];
        if (pausedAt === undefined) return { pausedAt: 'no 429 seen' };
        const after = log.filter(([at]) => at > pausedAt + 150);
        return {
          firstCallAfterTheWireMs: after.length ? after[0][0] - pausedAt : null,
          refusedAfterResume: figures(log, pausedAt + 6500, startAt + 14_000).refusedShare,
        };
      },
    },
    {
      name: 'tenants of weights 1, 2, 5 on three processes, all backlogged',
      processes: 3,
      callers: 64,
      durationMs: long(15_000),
      tenants: [
        ['one', 1],
        ['two', 2],
        ['five', 5],
      ],
      measure: (log, startAt) => {
        // Up to the end of the run: the calls still queued then complete after it, every
        // tenant's the same number, which is no share of a saturated budget.
        const end = startAt + long(15_000);
        const served = log.filter(
          ([at, status]) => status === 200 && at >= startAt + 3000 && at < end,
        );
        const share = (tenant: string) =>
          Math.round(
            (served.filter(([, , name]) => name === tenant).length / served.length) * 1000,
          ) / 1000;
        return { one: share('one'), two: share('two'), five: share('five') };
      },
    },
  ];
}

async function runScenario(redisUrl: string, scenario: Scenario, contender: Contender) {
  const mock = await startMockUpstream({
    RATE: String(RATE),
    CAPACITY: String(CAPACITY),
    ...scenario.mock,
  });
  try {
    const envs = Array.from({ length: scenario.processes }, (_, index) => ({
      REDIS_URL: redisUrl,
      UPSTREAM_URL: mock.url,
      RATE: String(RATE),
      CAPACITY: String(CAPACITY),
      CONCURRENCY: String(scenario.callers),
      DURATION_MS: String(scenario.durationMs),
      ...(scenario.tenants
        ? { TENANT: scenario.tenants[index][0], WEIGHT: String(scenario.tenants[index][1]) }
        : {}),
      ...envOf(contender),
    }));
    let startAt = 0;
    const steps: Array<Promise<void>> = [];
    await runCallers(envs, (start) => {
      startAt = start;
      for (const [atMs, settings] of scenario.steps ?? []) {
        steps.push(
          new Promise((resolve, reject) =>
            setTimeout(
              () => mock.control(settings).then(resolve, reject),
              start + atMs - Date.now(),
            ),
          ),
        );
      }
    });
    await Promise.all(steps);
    const log = (await mock.log(startAt)) as Arrival[];
    // Every call that reached the upstream: what the script calls are counted against.
    return { ...scenario.measure(log, startAt), starts: log.length };
  } finally {
    await mock.stop();
  }
}

export async function upstreamBench(log: (line: string) => void, quick: boolean): Promise<void> {
  const redis = await standaloneRedis();
  const results: Record<string, Record<string, object>> = {};
  // `--contenders=nestjs-limiter,none` and `--scenarios=0,3` run a part (a loaded machine).
  const picked = (flag: string) =>
    process.argv
      .find((arg) => arg.startsWith(`--${flag}=`))
      ?.split('=')[1]
      .split(',');
  const scenarios = upstreamScenarios(quick).filter(
    (_, index) => !picked('scenarios') || picked('scenarios')!.includes(String(index)),
  );
  try {
    for (const scenario of scenarios) {
      results[scenario.name] = {};
      const contenders: Contender[] =
        scenario.tenants || scenario.mock
          ? ['nestjs-limiter', 'bottleneck']
          : ['nestjs-limiter', 'bottleneck', 'none'];
      for (const contender of contenders) {
        if (picked('contenders') && !picked('contenders')!.includes(contender)) continue;
        await redis.onEachMaster('FLUSHALL');
        const before = await commandCounts(redis);
        // A contender that fails (Bottleneck's clustering under load: ERR UNKNOWN_CLIENT) is
        // recorded as such, and the others still run.
        const measured = await runScenario(redis.url, scenario, contender).catch(
          (error: Error) => ({ failed: /ERR [A-Z_]+/.exec(error.message)?.[0] ?? 'exited' }),
        );
        const calls = countsSince(before, await commandCounts(redis));
        const starts = 'starts' in measured ? measured.starts : 0;
        results[scenario.name][contender] = {
          ...measured,
          redisCommands: calls.all,
          scriptCalls: calls.scripts,
          scriptCallsPerStart: starts ? Math.round((calls.scripts / starts) * 100) / 100 : null,
        };
        log(
          `${scenario.name} | ${contender} | ${JSON.stringify(results[scenario.name][contender])}`,
        );
      }
    }
  } finally {
    await redis.stop();
  }
  const dir = join(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'upstream.json'), JSON.stringify(results, null, 2));
}
