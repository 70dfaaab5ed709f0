// The bench's verdicts: how two contenders' interleaved rounds are compared, and that a target
// passes only when both estimators reach it.
/* eslint-disable @typescript-eslint/no-require-imports */
const { medianRoundRatio, compareRounds } = require('../../../bench/stats');
const { evaluateTargets } = require('../../../bench/targets');

function httpResults(rounds: Record<'none' | 'ours' | 'throttler', number[]>) {
  const variant = (values: number[], appCpuUsPerRequest: number) => ({
    rounds: values,
    requestsPerSecond: [...values].sort((a, b) => a - b)[values.length >> 1],
    appCpuUsPerRequest,
  });
  return {
    http: {
      load: { rounds: rounds.none.length },
      results: {
        none: variant(rounds.none, 150),
        ours: variant(rounds.ours, 156),
        throttler: variant(rounds.throttler, 210),
      },
    },
  };
}

const target = (results: unknown, id: string) =>
  evaluateTargets(results).find((t: { id: string }) => t.id === id);

describe('bench round comparison', () => {
  it('takes the median of the per-round ratios', () => {
    expect(medianRoundRatio([2, 3, 4], [1, 1, 1])).toBeCloseTo(3, 12);
    expect(medianRoundRatio([4, 2, 6], [1, 4, 2])).toBeCloseTo(3, 12);
  });

  it('is symmetric for an even count of rounds', () => {
    const a = [120, 90, 200, 75];
    const b = [100, 100, 100, 100];
    expect(medianRoundRatio(a, b)).toBeCloseTo(Math.sqrt(1.2 * 0.9), 12);
    expect(medianRoundRatio(a, b) * medianRoundRatio(b, a)).toBeCloseTo(1, 12);
  });

  it('refuses rounds that do not pair up', () => {
    expect(() => medianRoundRatio([1, 2], [1])).toThrow('rounds differ: 2 against 1');
    expect(() => medianRoundRatio([1, 0], [1, 1])).toThrow('a round without a positive rate');
  });

  it('judges on the lower of the per-round median and the ratio of the medians', () => {
    const { perRound, ofMedians, judged } = compareRounds([4, 2, 6], [1, 4, 2]);
    expect(perRound).toBeCloseTo(3, 12);
    expect(ofMedians).toBe(2);
    expect(judged).toBe(2);
  });
});

describe('bench HTTP targets', () => {
  it('misses 1.3× when only the per-round median reaches it', () => {
    const results = httpResults({
      none: [150, 150, 150],
      ours: [135, 140, 110],
      throttler: [100, 105, 130],
    });
    const verdict = target(results, 'http-vs-throttler');
    expect(verdict.met).toBe(false);
    expect(verdict.measured).toContain('median of 3 per-round ratios 1.33×');
    expect(verdict.measured).toContain('ratio of the medians 1.29×');
    expect(verdict.measured).toContain('2 of 3 rounds reached it');
  });

  it('meets 1.3× when both estimators reach it, and states the bound set by the bare app', () => {
    const results = httpResults({
      none: [150, 150, 150],
      ours: [140, 145, 142],
      throttler: [100, 105, 102],
    });
    const verdict = target(results, 'http-vs-throttler');
    expect(verdict.met).toBe(true);
    expect(verdict.reason).toContain('The app with no guard at all served 1.47×');
    // (150 + 60) / 1.3 - 150: what 1.3× leaves a guard in app CPU per request.
    expect(verdict.reason).toContain('our guard 6.0 µs');
    expect(verdict.reason).toContain('which leaves a guard about 11.5 µs');
  });
});
