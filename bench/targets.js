'use strict';
// The targets of issue #6, checked against one run's results. Each entry says what was
// measured and, when missed, why, with this run's own figures.

const int = (n) => Math.round(n).toLocaleString('en-US');
const x = (n) => `${n.toFixed(2)}×`;
const us = (n) => (Number.isFinite(n) ? `${n.toFixed(1)} µs` : '?');

/** Short names of the HTTP variants, for the chart and the target texts. */
const HTTP_NAMES = {
  none: 'no limiter',
  ours: 'nestjs-limiter guard',
  'ours-ioredis': 'nestjs-limiter, scripts via ioredis',
  throttler: '@nestjs/throttler + Redis storage',
};

/** How a library-level row reaches Redis: the column "client path" of section 1. */
const clientPath = (row) =>
  row.dedicatedConnection
    ? 'dedicated connection (default)'
    : `ioredis, auto-pipelining ${row.autoPipelining ? 'on' : 'off'}`;

/** The faster of a contender's two rows, auto-pipelining off (`id`) and on (`id+ap`). */
const bestRow = (results, id) =>
  [results[id], results[`${id}+ap`]].filter(Boolean).sort((a, b) => b.perSecond - a.perSecond)[0];

/** Node and Redis CPU per decision of one row, and their sum. */
const cpu = (row) =>
  `Node ${us(row.nodeCpuUsPerDecision)} + Redis ${us(row.redisCpuUsPerDecision)} = ` +
  us(row.nodeCpuUsPerDecision + row.redisCpuUsPerDecision);

function libraryTargets(lib) {
  const r = lib.results;
  const ceiling = r['redis-benchmark counter'];
  const cost = (row) =>
    `${row.label} on ${clientPath(row)}: ${int(row.perSecond)}/s, CPU per decision ${cpu(row)}, ` +
    `${row.redis.commandsPerDecision} Redis commands`;
  const ratioTarget = (ours, peerId, wanted, name) => {
    const peer = bestRow(r, peerId);
    const ratio = r[ours].perSecond / peer.perSecond;
    return {
      id: `${ours}-vs-${peerId}`,
      target: `Library: our ${name} ≥ ${wanted.toFixed(1)}× ${peer.label} (decisions/s; ours by default, the peer's better auto-pipelining setting)`,
      measured: `${x(ratio)} (${int(r[ours].perSecond)} vs ${int(peer.perSecond)}/s; the peer with auto-pipelining ${peer.autoPipelining ? 'on' : 'off'}, its better row)`,
      met: ratio >= wanted,
      reason: `${cost(r[ours])} — ${cost(peer)}.`,
    };
  };
  const ceilingRatio = r.counter.perSecond / ceiling.perSecond;
  return [
    ratioTarget('tokenBucket', 'rlf', 1.0, 'token bucket'),
    ratioTarget('counter', 'rlf', 1.2, 'counter'),
    ratioTarget('tokenBucket', 'nestlab', 1.3, 'token bucket'),
    ratioTarget('counter', 'nestlab', 1.3, 'counter'),
    {
      id: 'counter-vs-ceiling',
      target: 'Library: our counter ≥ 70% of redis-benchmark running the same script',
      measured: `${(ceilingRatio * 100).toFixed(0)}% (${int(r.counter.perSecond)} vs ${int(ceiling.perSecond)}/s)`,
      met: ceilingRatio >= 0.7,
      reason:
        `redis-benchmark (C, 50 connections, 16 EVALSHA per write) cost Redis ${us(ceiling.redisCpuUsPerDecision)} per decision; ` +
        `our counter, one Node process on its dedicated connection, CPU per decision ${cpu(r.counter)}.`,
    },
  ];
}

function httpTargets(http) {
  const r = http.results;
  const ratio = (a, b) => r[a].requestsPerSecond / r[b].requestsPerSecond;
  const figures = (id) =>
    `${HTTP_NAMES[id]} ${int(r[id].requestsPerSecond)} req/s at ${us(r[id].appCpuUsPerRequest)} of app CPU per request`;
  return [
    {
      id: 'http-vs-none',
      target: 'HTTP: our guard keeps ≥ 90% of the no-limiter requests/s',
      measured: `${(ratio('ours', 'none') * 100).toFixed(0)}% (${int(r.ours.requestsPerSecond)} vs ${int(r.none.requestsPerSecond)} req/s)`,
      met: ratio('ours', 'none') >= 0.9,
      reason:
        `${figures('ours')}; ${figures('none')}: the guard adds ` +
        `${us(r.ours.appCpuUsPerRequest - r.none.appCpuUsPerRequest)} of app CPU per request (analysis item 5).`,
    },
    {
      id: 'http-vs-throttler',
      target: 'HTTP: our guard serves ≥ 1.3× @nestjs/throttler with Redis storage',
      measured: `${x(ratio('ours', 'throttler'))} (${int(r.ours.requestsPerSecond)} vs ${int(r.throttler.requestsPerSecond)} req/s)`,
      met: ratio('ours', 'throttler') >= 1.3,
      // No guard can serve more than the app without one: that bounds the ratio of any guard.
      reason:
        `${figures('ours')}; ${figures('throttler')}; ${figures('none')}. ` +
        `A guard that cost nothing would serve ${x(ratio('none', 'throttler'))} of @nestjs/throttler in this run (analysis item 5).`,
    },
  ];
}

function floodTargets(flood, http) {
  const rows = [
    ['library token bucket', flood.results.tokenBucket],
    ['library counter', flood.results.counter],
    ...(http ? [['HTTP guard (@CountLimit)', http.flood.ours]] : []),
  ];
  const worst = Math.max(...rows.map(([, row]) => row.commands));
  return [
    {
      id: 'flood',
      target: 'Flood: ≤ 5 Redis commands per 1,000 requests from one denied key',
      measured: rows.map(([name, row]) => `${name}: ${row.commands}`).join('; '),
      met: worst <= 5,
      reason: 'Denials are not answered locally for the whole retry time (see the flood table).',
    },
  ];
}

function memoryTargets(memory) {
  const r = memory.results;
  const ours = ['tokenBucket', 'counter', 'slidingWindow', 'concurrency', 'leakyBucket'].filter(
    (id) => r[id],
  );
  const tb = r.tokenBucket;
  const valueLength = tb.sampleValue ? tb.sampleValue.length : 0;
  return [
    {
      id: 'keys-per-limit',
      target: 'Memory: one Redis key per limit',
      measured: ours.map((id) => `${id} ${r[id].keysPerLimit}`).join(', '),
      met: ours.every((id) => r[id].keysPerLimit === 1),
      reason: 'Some algorithm keeps more than one key per limit.',
    },
    {
      id: 'token-bucket-bytes',
      target: 'Memory: ≤ 110 bytes for a token bucket with a 30-character key',
      measured: `${tb.bytesMax} bytes`,
      // 0 means MEMORY USAGE found no key: the bench measured the wrong name, not a small one.
      met: tb.bytesMax > 0 && tb.bytesMax <= 110,
      reason:
        tb.bytesMax === 0
          ? 'MEMORY USAGE found no key under the name the bench expected: the measurement failed.'
          : `The stored value is "${tb.sampleValue}" (${valueLength} characters, encoding ${tb.encoding}); ` +
            `an integer value (the counter) comes to ${r.counter.bytesMax} bytes in all. Analysis item 4.`,
    },
  ];
}

function evaluateTargets(results) {
  return [
    ...(results.library ? libraryTargets(results.library) : []),
    ...(results.http ? httpTargets(results.http) : []),
    ...(results.flood ? floodTargets(results.flood, results.http) : []),
    ...(results.memory ? memoryTargets(results.memory) : []),
  ];
}

module.exports = { evaluateTargets, clientPath, bestRow, HTTP_NAMES, int, x, us };
