'use strict';
// Section 1: library-level decisions per second, interleaved rounds, medians reported.
const { contenderList, setUp } = require('./contenders');
const { loadScripts, redisBenchmark } = require('./ceiling');
const { runLoad } = require('./load');
const {
  median,
  ROUND_ORDER,
  inRoundOrder,
  parseCommandStats,
  diffCommandStats,
  totalCalls,
  SCRIPT_COMMANDS,
} = require('./stats');

const LOAD = {
  total: 100_000,
  inFlight: 200,
  keys: 10_000,
  keyOf: (n) => `bench:user:${String(n).padStart(5, '0')}`,
};

function summarize(runs) {
  return {
    perSecond: median(runs.map((r) => r.perSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    rounds: runs.map((r) => Math.round(r.perSecond)),
    ...(runs[0].nodeCpuUsPerDecision !== undefined && {
      nodeCpuUsPerDecision: median(runs.map((r) => r.nodeCpuUsPerDecision)),
    }),
    redisCpuUsPerDecision: median(runs.map((r) => r.redisCpuUsPerDecision)),
  };
}

/** Redis commands per decision in one run: scripts (round trips) and every command run. */
function commandProfile(diff, decisions) {
  const scripts = totalCalls(diff, (name) => SCRIPT_COMMANDS.has(name));
  const all = totalCalls(diff);
  const usec = Object.values(diff).reduce((sum, stat) => sum + stat.usec, 0);
  const byCommand = Object.fromEntries(
    Object.entries(diff).map(([name, stat]) => [name, +(stat.calls / decisions).toFixed(3)]),
  );
  return {
    scriptCallsPerDecision: +(scripts / decisions).toFixed(3),
    commandsPerDecision: +(all / decisions).toFixed(3),
    redisUsecPerDecision: +(usec / decisions).toFixed(2),
    byCommand,
  };
}

/** CPU seconds the redis-server process has used (INFO cpu). */
function redisCpuSeconds(redis) {
  const info = redis.cli('INFO', 'cpu');
  return (
    Number(/used_cpu_user:([\d.]+)/.exec(info)[1]) + Number(/used_cpu_sys:([\d.]+)/.exec(info)[1])
  );
}

async function libraryBench(redis, { rounds = 6, log = console.log } = {}) {
  const contenders = contenderList();
  const ready = {};
  for (const contender of contenders) ready[contender.id] = await setUp(contender, redis.port);
  const scripts = loadScripts(redis);

  log(`  warm-up (${contenders.length} contenders)`);
  for (const contender of contenders) {
    redis.cli('FLUSHALL');
    await runLoad(ready[contender.id].decide, { ...LOAD, total: 30_000 });
  }

  const runs = {};
  const profiles = {};
  const runContender = async (contender, round) => {
    redis.cli('FLUSHALL');
    const before = parseCommandStats(redis.cli('INFO', 'commandstats'));
    const redisCpuBefore = redisCpuSeconds(redis);
    const nodeCpuBefore = process.cpuUsage();
    const result = await runLoad(ready[contender.id].decide, LOAD);
    const nodeCpu = process.cpuUsage(nodeCpuBefore);
    result.nodeCpuUsPerDecision = (nodeCpu.user + nodeCpu.system) / result.decisions;
    result.redisCpuUsPerDecision =
      ((redisCpuSeconds(redis) - redisCpuBefore) * 1e6) / result.decisions;
    const diff = diffCommandStats(before, parseCommandStats(redis.cli('INFO', 'commandstats')));
    if (result.allowed !== result.decisions)
      log(`  note: ${contender.id} denied ${result.decisions - result.allowed}`);
    (runs[contender.id] ??= []).push(result);
    profiles[contender.id] ??= commandProfile(diff, result.decisions);
    log(
      `  round ${round} ${contender.id.padEnd(22)} ${Math.round(result.perSecond)}/s p50 ${result.p50Ms.toFixed(2)} ms p99 ${result.p99Ms.toFixed(2)} ms, CPU per decision Node ${result.nodeCpuUsPerDecision.toFixed(1)} µs Redis ${result.redisCpuUsPerDecision.toFixed(1)} µs`,
    );
  };
  const runCeiling = async (name, round) => {
    redis.cli('FLUSHALL');
    const id = `redis-benchmark ${name}`;
    // Redis's CPU per decision under the ceiling's load, to compare with ours from Node.
    const redisCpuBefore = redisCpuSeconds(redis);
    const result = await redisBenchmark(redis.port, scripts[name]);
    result.redisCpuUsPerDecision =
      ((redisCpuSeconds(redis) - redisCpuBefore) * 1e6) / result.decisions;
    (runs[id] ??= []).push(result);
    log(`  round ${round} ${id} ${Math.round(result.perSecond)}/s`);
  };
  const steps = [
    ...contenders.map((contender) => (round) => runContender(contender, round)),
    ...Object.keys(scripts).map((name) => (round) => runCeiling(name, round)),
  ];
  try {
    for (let round = 1; round <= rounds; round++) {
      // Reversed every other round: with an even count of rounds, a steady drift of the
      // machine's speed during a round favours no contender.
      for (const step of inRoundOrder(steps, round)) await step(round);
    }
  } finally {
    for (const contender of contenders) await ready[contender.id].close().catch(() => undefined);
  }

  const results = {};
  for (const contender of contenders) {
    results[contender.id] = {
      ...contender,
      ...summarize(runs[contender.id]),
      redis: profiles[contender.id],
    };
  }
  for (const name of Object.keys(scripts)) {
    const id = `redis-benchmark ${name}`;
    results[id] = {
      id,
      label: `redis-benchmark EVALSHA of our ${name} script (-c 50 -P 16)`,
      ...summarize(runs[id]),
    };
  }
  return {
    load: {
      decisions: LOAD.total,
      inFlight: LOAD.inFlight,
      keys: LOAD.keys,
      rounds,
      order: ROUND_ORDER,
    },
    results,
  };
}

module.exports = { libraryBench };
