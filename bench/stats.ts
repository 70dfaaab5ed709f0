// Medians, interleaved rounds and the two estimators a target is judged on.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The contenders of one round (counted from 1): every other round in reverse, so that with an
 * even count of rounds a steady drift of the machine's speed favours no contender.
 */
export function inRoundOrder<T>(list: readonly T[], round: number): T[] {
  return round % 2 ? [...list] : [...list].reverse();
}

/** a[i] / b[i] for every round: two contenders' figures, paired by round. */
export function roundRatios(a: readonly number[], b: readonly number[]): number[] {
  if (a.length !== b.length || a.length === 0)
    throw new Error(`rounds differ: ${a.length} against ${b.length}`);
  if (![...a, ...b].every((value) => Number.isFinite(value) && value > 0))
    throw new Error('a round without a positive figure');
  return a.map((value, i) => value / b[i]);
}

/** The median of the per-round ratios, on their logarithms: ratio(a, b) = 1 / ratio(b, a). */
export function medianRoundRatio(a: readonly number[], b: readonly number[]): number {
  return Math.exp(median(roundRatios(a, b).map(Math.log)));
}

/** Two estimators of a / b over interleaved rounds; a target takes the one less kind to us. */
export interface Comparison {
  perRound: number;
  ofMedians: number;
}

export function compareRounds(a: readonly number[], b: readonly number[]): Comparison {
  return { perRound: medianRoundRatio(a, b), ofMedians: median(a) / median(b) };
}

/** For "a ≥ wanted × b": the lower estimator. */
export const atLeastJudged = (c: Comparison) => Math.min(c.perRound, c.ofMedians);
/** For "a ≤ wanted × b": the higher estimator. */
export const atMostJudged = (c: Comparison) => Math.max(c.perRound, c.ofMedians);
