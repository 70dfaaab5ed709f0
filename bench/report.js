'use strict';
// Writes BENCHMARKS.md and bench/http-chart.svg from one run's results.
const { readFileSync, existsSync } = require('node:fs');
const { join } = require('node:path');
const { barChart } = require('./svg-chart');
const { evaluateTargets, int, x, us } = require('./targets');

const ms = (n) => (Number.isFinite(n) ? n.toFixed(2) : '–');

function table(header, rows) {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');
}

const CHART_LABELS = {
  none: 'no limiter',
  ours: 'nestjs-limiter guard',
  'ours-autopipelining': 'nestjs-limiter, auto-pipelining',
  throttler: '@nestjs/throttler + Redis storage',
};

function httpChart(http) {
  const r = http.results;
  const order = ['none', 'ours', 'ours-autopipelining', 'throttler'].filter((id) => r[id]);
  return barChart({
    title: 'One Nest route on Express: requests per second (higher is better)',
    subtitle: `autocannon, ${http.load.connections} connections, ${http.load.duration} s × ${http.load.rounds} interleaved rounds, median; same Redis`,
    unit: 'req/s',
    bars: order.map((id) => ({
      label: CHART_LABELS[id] ?? id,
      value: r[id].requestsPerSecond,
      note: `p99 ${r[id].p99Ms} ms`,
      highlight: id === 'ours',
    })),
  });
}

function librarySection(lib, http) {
  const r = lib.results;
  const rows = Object.values(r)
    .filter((row) => row.kind)
    .map((row) => [
      row.label,
      row.autoPipelining ? 'on' : 'off',
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
    ]);
  const best = (kind) =>
    ['', '+ap'].map((s) => r[kind + s]).sort((a, b) => b.perSecond - a.perSecond)[0];
  return [
    '## 1. Library level',
    '',
    `${int(lib.load.decisions)} decisions per run, ${lib.load.inFlight} in flight, over ${int(lib.load.keys)} keys; every contender on its own`,
    `ioredis client with the same options; ${lib.load.rounds} interleaved rounds (A, B, C, …, A, B, C, …), median reported. Limits are`,
    'high (1e9 per minute; token bucket rate 1e6/s) so that every decision takes the normal, allowed path. Ours go through the',
    'public factory: `factory.rateLimiter({ key, rate, burst }).tryAcquire()` and `factory.countLimiter({ key, limit, period }).tryAcquire()`.',
    'Peers: `RateLimiterRedis.consume(key)` (`useRedisPackage: false`, rejection caught on deny) and',
    '`ThrottlerStorageRedisService.increment(key, ttl, limit, blockDuration, name)`.',
    '',
    table(
      [
        'contender',
        'auto-pipelining',
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
    table(['ceiling', 'requests/s', 'p50 ms', 'p99 ms', 'each round'], ceilings),
    '',
    `**Auto-pipelining** (DESIGN.md §5 uses it "where bench/ shows it helps"): at this level it ${best('counter').autoPipelining ? 'helps' : 'does not help'} our counter`,
    `(off ${int(r.counter.perSecond)}/s, on ${int(r['counter+ap'].perSecond)}/s) and ${best('tokenBucket').autoPipelining ? 'helps' : 'does not help'} our token bucket`,
    `(off ${int(r.tokenBucket.perSecond)}/s, on ${int(r['tokenBucket+ap'].perSecond)}/s). ioredis keeps one auto-pipeline in flight per connection and`,
    'queues the next one until its replies are back, so with a steady 200 decisions in flight Node and Redis take turns instead of',
    'working in parallel.',
    ...(http
      ? [
          `At the HTTP level (section 2) the module’s own client (coalesced writes, no auto-pipelining) served ${int(http.results.ours.requestsPerSecond)} req/s,`,
          `a client with auto-pipelining ${int(http.results['ours-autopipelining'].requestsPerSecond)} req/s.`,
        ]
      : []),
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
    'and the socket.',
    '',
    table(['call', 'ns per decision', 'each round'], rows),
  ].join('\n');
}

function httpSection(http) {
  const r = http.results;
  const rows = Object.entries(r).map(([id, row]) => [
    row.label,
    `**${int(row.requestsPerSecond)}**`,
    `${((row.requestsPerSecond / r.none.requestsPerSecond) * 100).toFixed(0)}%`,
    String(row.p50Ms),
    String(row.p99Ms),
    row.rounds.map(int).join(', '),
    String(row.non2xx + row.errors),
  ]);
  return [
    '## 2. HTTP level',
    '',
    `\`${http.load.route}\` returning \`ok\`, one Nest 11 app per variant, each in its own process; load from autocannon in`,
    `another process: ${http.load.connections} connections, pipelining ${http.load.pipelining}, ${http.load.duration} s per run,`,
    `${http.load.rounds} interleaved rounds, median reported. The machine has 2 cores shared by the app, autocannon and redis-server.`,
    '',
    '- **no limiter**: the route alone.',
    '- **nestjs-limiter guard**: `RateLimiterModule.forRoot({ redis: url })` and `@CountLimit({ limit: 1e9, period: 60, limitType: LimitType.IP })`;',
    '  the module creates its own client (its defaults: no auto-pipelining; RedisStore coalesces the writes of one event-loop turn).',
    '- **… client with auto-pipelining**: the same with `redis: { host, port, enableAutoPipelining: true }`.',
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
        'p50 ms',
        'p99 ms',
        'each round (req/s)',
        'non-2xx + errors',
      ],
      rows,
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
    'Numbers from a shared 2-core virtual machine move by ±30 % from run to run; the rounds are interleaved so that drift',
    'hits every contender alike, and every figure is the median of its rounds. Read the ratios, not the absolute numbers.',
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
