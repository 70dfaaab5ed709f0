'use strict';
// Runs `total` decisions with `inFlight` of them pending at any time, over `keys` keys,
// and measures throughput and per-decision latency.
const { percentile } = require('./stats');

async function runLoad(decide, { total, inFlight, keys, keyOf }) {
  const latencies = new Float64Array(total);
  let next = 0;
  let allowed = 0;
  async function worker() {
    while (next < total) {
      const i = next++;
      const key = keyOf(i % keys);
      const start = performance.now();
      if (await decide(key)) allowed++;
      latencies[i] = performance.now() - start;
    }
  }
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort();
  return {
    decisions: total,
    allowed,
    seconds,
    perSecond: total / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}

module.exports = { runLoad };
