'use strict';
// Small statistics and Redis INFO helpers shared by the sections.

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** How the sections order their contenders: every other round in reverse (ROUND_ORDER). */
const ROUND_ORDER = 'alternating';

/** The contenders of one round (counted from 1), in that round's order. */
function inRoundOrder(list, round) {
  return round % 2 ? list : [...list].reverse();
}

/** a[i] / b[i] for every round: two contenders' rates, paired by round. */
function roundRatios(a, b) {
  if (a.length !== b.length || a.length === 0)
    throw new Error(`rounds differ: ${a.length} against ${b.length}`);
  if (![...a, ...b].every((value) => Number.isFinite(value) && value > 0))
    throw new Error('a round without a positive rate');
  return a.map((value, i) => value / b[i]);
}

/**
 * The median of the per-round ratios, taken on their logarithms so that ratio(a, b) is
 * exactly 1 / ratio(b, a) for an even count of rounds too.
 */
function medianRoundRatio(a, b) {
  return Math.exp(median(roundRatios(a, b).map(Math.log)));
}

/**
 * The two ways to compare a and b over interleaved rounds, and the lower of them, which the
 * targets are judged on: neither estimator may be picked for the answer it gives.
 */
function compareRounds(a, b) {
  const perRound = medianRoundRatio(a, b);
  const ofMedians = median(a) / median(b);
  return { perRound, ofMedians, judged: Math.min(perRound, ofMedians) };
}

/** `INFO commandstats` text -> { command: { calls, usec } }. */
function parseCommandStats(text) {
  const stats = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line);
    if (match) stats[match[1]] = { calls: Number(match[2]), usec: Number(match[3]) };
  }
  return stats;
}

/** after - before, leaving out INFO / CONFIG / commands that did not change. */
function diffCommandStats(before, after) {
  const diff = {};
  for (const [name, stat] of Object.entries(after)) {
    if (name === 'info' || name.startsWith('config')) continue;
    const calls = stat.calls - (before[name]?.calls ?? 0);
    const usec = stat.usec - (before[name]?.usec ?? 0);
    if (calls > 0) diff[name] = { calls, usec };
  }
  return diff;
}

function totalCalls(diff, filter = () => true) {
  return Object.entries(diff)
    .filter(([name]) => filter(name))
    .reduce((sum, [, stat]) => sum + stat.calls, 0);
}

const SCRIPT_COMMANDS = new Set([
  'eval',
  'evalsha',
  'eval_ro',
  'evalsha_ro',
  'fcall',
  'fcall_ro',
  'multi',
  'exec',
]);

module.exports = {
  percentile,
  median,
  ROUND_ORDER,
  inRoundOrder,
  roundRatios,
  medianRoundRatio,
  compareRounds,
  parseCommandStats,
  diffCommandStats,
  totalCalls,
  SCRIPT_COMMANDS,
};
