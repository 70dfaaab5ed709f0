// BENCHMARKS.md from one run's results, with the hand-written analysis appended.
import { GUARD_VARIANTS, GuardVariant, PLAN_VARIANTS } from './guard';
import type { HttpMeasure, HttpResults } from './http';
import type { HttpVariant } from './http-app';
import type { Limiter, Row } from './library';
import { LOAD, NAMES } from './library';
import { atMostJudged, compareRounds, median } from './stats';
import { evaluateTargets, int, Results, us, x } from './targets';

const ms = (n: number) => n.toFixed(2);

/** A Markdown table; `header` is the column names joined by '|'. */
function table(header: string, rows: (string | number)[][]): string {
  const names = header.split('|');
  return [`| ${names.join(' | ')} |`, `|${names.map(() => '---').join('|')}|`]
    .concat(rows.map((row) => `| ${row.join(' | ')} |`))
    .join('\n');
}

const LIBRARY_COLUMNS =
  'contender|decisions/s|each round|p50 / p99 ms|script calls per decision|Redis commands per decision|decisions per engine call|Node CPU per decision|Redis CPU per decision|Redis CPU ÷ rate-limiter-flexible’s';

/** A row's Redis CPU per decision over rate-limiter-flexible's cheaper setting's, in this run. */
function redisCpuRatio(rows: Record<string, Row>, row: Row): string {
  const peers = ['rlf', 'rlf+ap'].filter((id) => rows[id]);
  if (peers.length === 0) return '';
  const peer = Math.min(...peers.map((id) => median(rows[id].redisCpuUs)));
  return `${(median(row.redisCpuUs) / peer).toFixed(2)}×`;
}

function libraryTable(rows: Record<string, Row>): string {
  return table(
    LIBRARY_COLUMNS,
    Object.values(rows).map((row) => [
      row.label,
      `**${int(median(row.perSecond))}**`,
      row.perSecond.map(int).join(', '),
      `${ms(median(row.p50Ms))} / ${ms(median(row.p99Ms))}`,
      row.scriptsPerDecision.toFixed(3),
      row.commandsPerDecision.toFixed(2),
      row.decisionsPerCall ? median(row.decisionsPerCall).toFixed(1) : '',
      us(median(row.nodeCpuUs)),
      us(median(row.redisCpuUs)),
      redisCpuRatio(rows, row),
    ]),
  );
}

function httpTable({ runs }: HttpResults): string {
  return table(
    'variant|requests/s|each round|p50 / p99 ms|app CPU per request, alone / shared|failures',
    (Object.keys(runs) as HttpVariant[]).map((variant) => {
      const of = (figure: (run: HttpMeasure) => number) => median(runs[variant].map(figure));
      return [
        variant,
        `**${int(of((r) => r.requestsPerSecond))}**`,
        runs[variant].map((r) => int(r.requestsPerSecond)).join(', '),
        `${ms(of((r) => r.p50Ms))} / ${ms(of((r) => r.p99Ms))}`,
        `${us(of((r) => r.appCpuUs))} / ${us(of((r) => r.sharedCpuUs))}`,
        runs[variant].reduce((sum, r) => sum + r.failures, 0),
      ];
    }),
  );
}

const GUARD_LABELS: Record<GuardVariant, string> = {
  static: 'all values',
  function: '`limit` as a function',
  tenants10: '`limit` from 10 plans, 10,000 tenant keys',
  tenants10k: '`limit` from 10,000 plans (one per tenant), the same keys',
  keys10k: 'one static `limit`, the same 10,000 tenant keys',
};

/** Redis CPU per decision at each count in flight, per algorithm, against the peer's. */
function redisCpuSection({ engineCost }: Results): string[] {
  if (!engineCost) return [];
  const { batches, peer } = engineCost;
  const shown = [1, 10, 200].map((inFlight) => batches.indexOf(inFlight)).filter((at) => at >= 0);
  const cell = (cpu: number[], at: number) =>
    `${us(median(cpu))} (${x(atMostJudged(compareRounds(cpu, peer[at])))})`;
  return [
    '## Redis CPU per decision, 1 to 200 in flight',
    '',
    '`npm run bench -- --engine-cost` as part of the run: for each algorithm, 20,000 decisions through the',
    'public factory over 10,000 keys, all of one batch sent in one event-loop turn (one engine call), and',
    'rate-limiter-flexible’s `consume` with as many in flight. The redis-server process’s CPU (`INFO cpu`)',
    `per decision, medians of ${peer[0].length} runs, and in brackets the ratio to the peer's at as many in`,
    'flight (the less favourable of the two estimators).',
    '',
    table(`algorithm|${shown.map((at) => `${batches[at]} in flight`).join('|')}`, [
      ['rate-limiter-flexible', ...shown.map((at) => us(median(peer[at])))],
      ...(Object.entries(engineCost.ours) as [Limiter, number[][]][]).map(([limiter, cpu]) => [
        NAMES[limiter],
        ...shown.map((at) => cell(cpu[at], at)),
      ]),
    ]),
    '',
  ];
}

/** The guard's own cost, static options against an option given as a function. */
function guardSection({ guard }: Results): string[] {
  if (!guard) return [];
  const rounds = guard.static.length;
  return [
    '## Guard cost per request, static or function options',
    '',
    '`RateLimitGuard.canActivate` called directly, one request after another, on the in-memory store',
    `(no HTTP, no Redis): \`@CountLimit({ limit: 1e9, period: 60 })\` against the same limit with`,
    `\`limit: () => 1e9\`, and a limit from each tenant's plan over 10,000 tenant keys. ${rounds}`,
    'interleaved rounds of 100,000 calls, medians. A handler whose options are all values runs its',
    'limit compiled at start-up; one with a function resolves it per request: its values are checked',
    "and travel as the limit's arguments, and nothing is kept per value.",
    '',
    guardTable(guard, GUARD_VARIANTS),
    '',
    ...(guard.onRedis
      ? [
          "The plans' rows on one Redis, 200 requests in flight: the Node CPU of each request",
          '(`process.cpuUsage`), where its params, made for it, are formatted as the engine',
          "call's arguments.",
          '',
          guardTable(guard.onRedis, PLAN_VARIANTS),
          '',
        ]
      : []),
  ];
}

function guardTable(
  rows: Partial<Record<GuardVariant, number[]>>,
  variants: readonly GuardVariant[],
): string {
  return table(
    'options|µs per request|each round',
    variants
      .filter((variant) => rows[variant]?.length)
      .map((variant) => [
        GUARD_LABELS[variant],
        `**${us(median(rows[variant]!))}**`,
        rows[variant]!.map((value) => value.toFixed(2)).join(', '),
      ]),
  );
}

export function renderMarkdown(results: Results, analysis: string): string {
  const verdicts = evaluateTargets(results);
  const missed = verdicts.filter((v) => !v.met);
  const { http } = results;
  const rounds = results.standalone.counter.perSecond.length;
  return [
    '# Benchmarks',
    '',
    `Run of record: ${results.startedAt}, \`npm run bench\` in ${Math.round(results.durationSeconds)} s.`,
    `Machine: ${Object.entries(results.machine)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    'A shared 2-core virtual machine: absolute figures are noisy (the load averages above say how busy it',
    'was). Contenders run in interleaved rounds (every other round in reverse order), and a target',
    'comparing two of them is judged on the less favourable of two estimators: the median of the',
    'per-round ratios and the ratio of the medians.',
    '',
    '## Targets (issues 12, 23 and 31)',
    '',
    table(
      'target|measured|verdict',
      verdicts.map((v) => [v.target, v.measured, v.met ? 'met' : '**missed**']),
    ),
    '',
    ...missed.flatMap((v, i) => [
      ...(i ? [] : ['Missed, with this run’s figures (the analysis below has the reasons):', '']),
      `- **${v.target}**: ${v.reason}`,
      '',
    ]),
    '## Library level, one Redis',
    '',
    `${LOAD.inFlight} decisions in flight over ${int(LOAD.keyCount)} keys, ${rounds} interleaved rounds, medians. Limits are high so`,
    'every decision takes the allowed path. Ours through the public factory (`rateLimiter({ key, rate: 1e6, burst: 1 })`,',
    '`countLimiter({ key, limit: 1e9, period: 60 })`) on `new RedisStore({ client })`; "batching off" is the',
    'same store with one script call per decision. rate-limiter-flexible: `RateLimiterRedis.consume(key)`.',
    'CPU per decision: `process.cpuUsage()` of the bench process and `INFO cpu` of Redis over a run, over its decisions.',
    '',
    libraryTable(results.standalone),
    '',
    '## Library level, Redis Cluster (3 masters)',
    '',
    'The same load on a local 3-master cluster (`test/helpers/redis-cluster.ts`), every contender on its own',
    'ioredis `Cluster` client; Redis CPU is the sum over the masters.',
    '',
    libraryTable(results.cluster),
    '',
    ...redisCpuSection(results),
    '## HTTP level',
    '',
    `One Nest route on Express (\`GET /hello\`), each app in its own process, loaded by ${http.tool}`,
    `(${http.load.connections} connections, ${http.load.duration} s × ${http.load.rounds} interleaved rounds).`,
    'App CPU per request is `process.cpuUsage()` of the app over a run, over the requests it served:',
    '"alone" in the run that gives requests/s, "shared" with all three apps loaded at the same time,',
    'which the CPU target is judged on (analysis, "HTTP").',
    '',
    httpTable(http),
    '',
    '## Flood',
    '',
    'Redis commands (scripts and the commands they run, `INFO commandstats`) for 1,000 requests from one key',
    'already denied, 50 in flight.',
    '',
    table('contender|Redis commands per 1,000 denied', [
      ...Object.entries(results.flood).map(([id, commands]) => [`library ${id}`, commands]),
      ...Object.entries(http.flood).map(([variant, f]) => [
        `HTTP ${variant} (${f?.denied} denied)`,
        f?.commands ?? '–',
      ]),
    ]),
    '',
    ...guardSection(results),
    '## Memory',
    '',
    '`MEMORY USAGE` of one limit’s key (30 characters) after as many requests as the limit allows (its',
    'largest state), and the keys one limit makes.',
    '',
    table(
      'algorithm|limit|requests|bytes|keys per limit|encoding',
      results.memory.map((r) => [
        r.label,
        r.limit,
        r.requests,
        r.bytes,
        r.keysPerLimit,
        r.encoding,
      ]),
    ),
    '',
    analysis.trim(),
    '',
  ].join('\n');
}
