'use strict';
// Writes BENCHMARKS.md and bench/http-chart.svg from one run's results.
const { readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const { barChart } = require('./svg-chart');
const { ROUND_ORDER, compareRounds, roundRatios } = require('./stats');
const {
  evaluateTargets,
  clientPath,
  bestRow,
  HTTP_NAMES,
  HTTP_PAIRS,
  int,
  x,
  percent,
  us,
} = require('./targets');

const ms = (n) => (Number.isFinite(n) ? n.toFixed(2) : '–');
const whole = (n) => (Number.isFinite(n) ? n.toFixed(0) : '–');
/** Relative change from `from` to `to`, signed: "+12 %", "−8 %". */
const change = (from, to) => {
  const percent = (to / from - 1) * 100;
  return `${percent < 0 ? '−' : '+'}${Math.abs(percent).toFixed(0)} %`;
};

function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

/** Which load generator ran, and why wrk is preferred (results older than the field: autocannon). */
function loadToolText(load) {
  const why =
    'it is a C load generator that takes far less of the 2 shared cores than autocannon, so the app under test, not the load generator, sets the pace';
  return load.tool === 'wrk'
    ? `wrk ${load.toolVersion ?? ''} (\`wrk -t1 -c${load.connections} -d${load.duration}s --latency\`), preferred because ${why}`
    : `autocannon, because wrk was not on PATH; wrk is preferred because ${why}`;
}

/** How the contenders were ordered within the rounds (older results: the same order each time). */
const orderText = (load) =>
  load.order === ROUND_ORDER
    ? '(A, B, C, … then …, C, B, A: every other round in reverse order)'
    : '(the same order every round)';

function httpChart(http) {
  const r = http.results;
  const order = Object.keys(HTTP_NAMES).filter((id) => r[id]);
  return barChart({
    title: 'One Nest route on Express: requests per second (higher is better)',
    subtitle: `${http.load.tool ?? 'autocannon'}, ${http.load.connections} connections, ${http.load.duration} s × ${http.load.rounds} interleaved rounds, median; same Redis`,
    unit: 'req/s',
    bars: order.map((id) => ({
      label: HTTP_NAMES[id],
      value: r[id].requestsPerSecond,
      note: `p99 ${ms(r[id].p99Ms)} ms`,
      highlight: id === 'ours',
    })),
  });
}

/** The client-path paragraph of section 1, from this run's numbers. */
function clientPathParagraph(r, http) {
  const rate = (row) => `${int(row.perSecond)}/s`;
  const offOn = (id) =>
    `${rate(r[id])} with auto-pipelining off, ${rate(r[`${id}+ap`])} on (${change(r[id].perSecond, r[`${id}+ap`].perSecond)})`;
  const ours = ['counter', 'tokenBucket'].map(
    (kind) =>
      `- ${r[kind].label}: ${rate(r[kind])} on the dedicated connection; through ioredis ${offOn(`${kind}-ioredis`)}. ` +
      `The dedicated connection ran ${x(r[kind].perSecond / bestRow(r, `${kind}-ioredis`).perSecond)} its better ioredis row.`,
  );
  const peers = ['rlf', 'nestlab'].map((id) => `- ${r[id].label} (ioredis only): ${offOn(id)}.`);
  const httpLine = (id) =>
    `${int(http.results[id].requestsPerSecond)} req/s at ${us(http.results[id].appCpuUsPerRequest)} of app CPU per request`;
  return [
    '**Client path and auto-pipelining** (DESIGN.md §5 uses auto-pipelining "where bench/ shows it helps"):',
    '',
    ...ours,
    ...peers,
    ...(http
      ? [
          `- HTTP level (section 2): the module’s defaults ${httpLine('ours')}; the same guard with its scripts through ioredis ${httpLine('ours-ioredis')}.`,
        ]
      : []),
    '',
    'ioredis keeps one auto-pipeline in flight per connection and queues the next one until its replies are back; the',
    'dedicated connection, and RedisStore’s coalesced writes on the ioredis path, have any number of writes in flight.',
  ].join('\n');
}

function librarySection(lib, http) {
  const r = lib.results;
  const rows = Object.values(r)
    .filter((row) => row.kind)
    .map((row) => [
      row.label,
      clientPath(row),
      `**${int(row.perSecond)}**`,
      ms(row.p50Ms),
      ms(row.p99Ms),
      row.rounds.map(int).join(', '),
      `${row.redis.scriptCallsPerDecision} / ${row.redis.commandsPerDecision}`,
      us(row.nodeCpuUsPerDecision),
      us(row.redisCpuUsPerDecision),
    ]);
  const ceilings = Object.values(r)
    .filter((row) => !row.kind)
    .map((row) => [
      row.label,
      `**${int(row.perSecond)}**`,
      ms(row.p50Ms),
      ms(row.p99Ms),
      row.rounds.map(int).join(', '),
      us(row.redisCpuUsPerDecision),
    ]);
  return [
    '## 1. Library level',
    '',
    `${int(lib.load.decisions)} decisions per run, ${lib.load.inFlight} in flight, over ${int(lib.load.keys)} keys; every contender on its own`,
    `ioredis client with the same options apart from auto-pipelining; ${lib.load.rounds} interleaved rounds ${orderText(lib.load)}, median reported.`,
    'Limits are high (1e9 per minute; token bucket rate 1e6/s) so that every decision takes the normal, allowed path. Ours go through the',
    'public factory: `factory.rateLimiter({ key, rate, burst }).tryAcquire()` and `factory.countLimiter({ key, limit, period }).tryAcquire()`,',
    'on `new RedisStore({ client })`, which runs its scripts on a dedicated connection of its own (the default), or on',
    '`new RedisStore({ client, dedicatedConnection: false })`, which sends them through ioredis.',
    'Peers: `RateLimiterRedis.consume(key)` (`useRedisPackage: false`, rejection caught on deny) and',
    '`ThrottlerStorageRedisService.increment(key, ttl, limit, blockDuration, name)`.',
    '',
    table(
      [
        'contender',
        'client path',
        'decisions/s',
        'p50 ms',
        'p99 ms',
        'each round (decisions/s)',
        'Redis scripts / commands per decision',
        'Node CPU per decision',
        'Redis CPU per decision',
      ],
      rows,
    ),
    '',
    '"Redis commands" counts the commands run inside the script too (`INFO commandstats`); CPU per decision is',
    '`process.cpuUsage()` of the bench process and `INFO cpu` of redis-server over the run, divided by the decisions.',
    '',
    '**Ceiling of the Redis side**: `redis-benchmark -n 100000 -c 50 -P 16 -r 10000 EVALSHA <sha> 1 bench:rb:__rand_int__ …`',
    'with the Lua source of our scripts taken from the built library (`fixedWindow.lua`, `tokenBucket.lua`) and the same arguments',
    'the library sends:',
    '',
    table(
      ['ceiling', 'requests/s', 'p50 ms', 'p99 ms', 'each round', 'Redis CPU per decision'],
      ceilings,
    ),
    '',
    clientPathParagraph(r, http),
  ].join('\n');
}

function overheadSection(overhead) {
  const rows = Object.entries(overhead.results).map(([name, row]) => [
    name,
    `**${int(row.nsPerDecision)}**`,
    row.rounds.map(int).join(', '),
  ]);
  return [
    '### 1b. JavaScript cost per decision (no Redis)',
    '',
    `The same calls with a stub client that answers every command at once (${int(overhead.decisions)} sequential decisions,`,
    `${overhead.rounds} rounds after a warm-up, median): the part of the Node CPU per decision that a library itself spends, without ioredis`,
    'and the socket. Ours take the ioredis path here (`dedicatedConnection` has no effect: a stub client has no socket for the',
    'dedicated connection to follow), so these rows do not include the dedicated connection’s own encoding and reply parsing.',
    '',
    table(['call', 'ns per decision', 'each round'], rows),
  ].join('\n');
}

function httpSection(http) {
  const r = http.results;
  const rows = Object.values(r).map((row) => [
    row.label,
    `**${int(row.requestsPerSecond)}**`,
    percent(row.requestsPerSecond / r.none.requestsPerSecond),
    whole(row.appCpuUsPerRequest),
    ms(row.p50Ms),
    ms(row.p99Ms),
    row.rounds.map(int).join(', '),
    String(row.non2xx + row.errors),
  ]);
  return [
    '## 2. HTTP level',
    '',
    `\`${http.load.route}\` returning \`ok\`, one Nest 11 app per variant, each in its own process; load from another process:`,
    `${http.load.connections} connections, ${http.load.duration} s per run, ${http.load.rounds} interleaved rounds ${orderText(http.load)}, median reported.`,
    'The machine has 2 cores shared by the app, the load generator and redis-server.',
    `Load generator: ${loadToolText(http.load)}.`,
    '',
    '- **no limiter**: the route alone.',
    '- **nestjs-limiter guard**: `RateLimiterModule.forRoot({ redis: url })` and `@CountLimit({ limit: 1e9, period: 60, limitType: LimitType.IP })`;',
    '  the module creates its own client, and its store runs the scripts on a dedicated connection (the default).',
    '- **… scripts through ioredis**: the same guard on',
    '  `RateLimiterModule.forRoot({ store: new RedisStore({ client: new Redis(url, { maxRetriesPerRequest: 1 }), ownsClient: true, dedicatedConnection: false }) })`:',
    '  the scripts go through ioredis (no auto-pipelining; RedisStore coalesces the writes of one event-loop turn).',
    '- **@nestjs/throttler**: `ThrottlerModule.forRoot({ throttlers: [{ ttl: 60_000, limit: 1e9 }], storage: new ThrottlerStorageRedisService(url) })`',
    '  with `ThrottlerGuard` as `APP_GUARD` (it also tracks by IP).',
    '',
    '![HTTP comparison](bench/http-chart.svg)',
    '',
    table(
      [
        'variant',
        'req/s',
        'of no limiter',
        'app CPU per request (µs)',
        'p50 ms',
        'p99 ms',
        'each round (req/s)',
        'non-2xx + errors',
      ],
      rows,
    ),
    '',
    '"App CPU per request" is the app process’s `process.cpuUsage()` (user + system) over a run, divided by the requests',
    'it served: it moves less from run to run than requests/s on this shared 2-core machine. The req/s column, "of no',
    'limiter" and the chart use each variant’s median.',
    '',
    `The HTTP targets, both ways (a round runs the ${Object.keys(r).length} variants one after another, ${http.load.duration} s each):`,
    '',
    table(
      ['requests/s ratio', 'median of the per-round ratios', 'ratio of the medians', 'each round'],
      HTTP_PAIRS.map(([a, b]) => {
        const { perRound, ofMedians } = compareRounds(r[a].rounds, r[b].rounds);
        return [
          `${HTTP_NAMES[a]} / ${HTTP_NAMES[b]}`,
          x(perRound),
          x(ofMedians),
          roundRatios(r[a].rounds, r[b].rounds).map(x).join(', '),
        ];
      }),
    ),
  ].join('\n');
}

function floodSection(flood, http) {
  const rows = Object.values(flood.results).map((row) => [
    row.label,
    String(row.denied),
    `**${row.commands}**`,
    String(row.roundTrips),
    Object.entries(row.byCommand)
      .map(([name, calls]) => `${name} ${calls}`)
      .join(', ') || '–',
  ]);
  const httpRows = http
    ? Object.values(http.flood).map((row) => [
        row.label,
        JSON.stringify(row.statuses),
        `**${row.commands}**`,
        String(row.roundTrips),
      ])
    : [];
  return [
    '## 3. Flood from one denied key',
    '',
    `The key is first driven to a denial (one allowed request, one denied), then ${flood.requests} more requests arrive,`,
    `${flood.inFlight} in flight. Redis commands are the \`INFO commandstats\` difference (commands run inside scripts included).`,
    '',
    'Library level:',
    '',
    table(['limiter', 'denied', 'Redis commands per 1,000', 'round trips', 'by command'], rows),
    ...(http
      ? [
          '',
          'HTTP level (`GET /flood`, limited to 1 request a minute per IP, same apps as section 2):',
          '',
          table(['variant', 'statuses', 'Redis commands per 1,000', 'round trips'], httpRows),
        ]
      : []),
  ].join('\n');
}

function memorySection(memory) {
  const rows = Object.values(memory.results).map((row) => [
    row.label,
    `**${row.bytesMax}**`,
    String(row.bytesMedian),
    String(row.keysPerLimit),
    row.encoding,
    row.sampleValue ? `\`${row.sampleValue}\`` : '–',
  ]);
  return [
    '## 4. Memory per active limit',
    '',
    `\`MEMORY USAGE <key> SAMPLES 0\` after 3 requests a few ms apart, over ${memory.limits} limits per algorithm, every Redis key`,
    `exactly ${memory.keyLength} characters long (peers' prefixes included). "Keys per limit" is \`DBSIZE\` / limits.`,
    '',
    table(
      ['algorithm', 'bytes (max)', 'bytes (median)', 'keys per limit', 'encoding', 'value'],
      rows,
    ),
  ].join('\n');
}

function renderMarkdown(results) {
  const m = results.machine;
  const targets = evaluateTargets(results);
  const targetRows = targets.map((t) => [t.target, t.measured, t.met ? '✅ met' : '❌ **missed**']);
  const missed = targets.filter((t) => !t.met);
  const notesPath = join(__dirname, 'notes.md');
  const notes = existsSync(notesPath) ? readFileSync(notesPath, 'utf8').trim() : '';
  return [
    '# Benchmarks',
    '',
    '<!-- Generated by `npm run bench` (bench/run.js). Edit bench/notes.md or bench/report.js, not this file. -->',
    '',
    `nestjs-limiter against its peers, measured in one run on one machine, on one Redis started by the bench. Run of ${results.startedAt},`,
    `${Math.round(results.durationSeconds)} s in all.`,
    '',
    '**Reproduce**: `npm run bench` (builds the library, starts its own `redis-server` on a free loopback port, runs every',
    'section, stops everything, rewrites this file, `bench/http-chart.svg` and `bench/results/latest.json`).',
    '',
    '**Machine**:',
    '',
    table(
      ['', ''],
      [
        ['CPU', `${m.cpuModel}, \`nproc\` = ${m.nproc}`],
        ['Memory', `${m.memoryGiB} GiB`],
        ['OS', m.os],
        ['Node.js', m.node],
        ['Redis', `${m.redis} (no persistence)`],
        [
          'Packages',
          Object.entries(m.packages)
            .map(([name, version]) => `${name} ${version}`)
            .join(', '),
        ],
      ],
    ),
    '',
    'Numbers from a shared 2-core virtual machine move by ±30 % from run to run, and one contender’s rate by up to 1.7×',
    'between rounds of one run. The rounds are interleaved so that slow drift reaches every contender alike, and every',
    'figure is the median of its rounds. A ratio in the targets is computed two ways, the median of the two contenders’',
    'per-round ratios and the ratio of their medians, and a target is judged on the lower of the two.',
    'Read the ratios, not the absolute numbers.',
    '',
    '## Targets',
    '',
    table(['target', 'measured', 'met?'], targetRows),
    '',
    ...(missed.length
      ? [
          '### Why the missed targets are missed (this run’s figures)',
          '',
          ...missed.map((t) => `- **${t.target}** — ${t.measured}. ${t.reason}`),
          '',
        ]
      : []),
    results.library ? librarySection(results.library, results.http) : '',
    '',
    ...(results.overhead ? [overheadSection(results.overhead), ''] : []),
    ...(results.http
      ? [httpSection(results.http), '']
      : ['## 2. HTTP level', '', results.httpSkipped ?? 'Not run.', '']),
    results.flood ? floodSection(results.flood, results.http) : '',
    '',
    results.memory ? memorySection(results.memory) : '',
    '',
    ...(notes ? [notes, ''] : []),
  ].join('\n');
}

module.exports = { renderMarkdown, httpChart };
