// The bench's verdicts: how interleaved rounds are compared, and that a target is met only when
// the estimator less kind to us reaches it.
import type { HttpMeasure } from '../../../bench/http';
import type { Row } from '../../../bench/library';
import { atLeastJudged, atMostJudged, compareRounds, medianRoundRatio } from '../../../bench/stats';
import { addedCpuRatio, evaluateTargets, Results } from '../../../bench/targets';

function row(perSecond: number[], nodeCpuUs = 1, redisCpuUs = 3): Row {
  return {
    label: 'row',
    perSecond,
    nodeCpuUs: perSecond.map(() => nodeCpuUs),
    redisCpuUs: perSecond.map(() => redisCpuUs),
    p50Ms: perSecond.map(() => 1),
    p99Ms: perSecond.map(() => 2),
    scriptsPerDecision: 0.01,
    commandsPerDecision: 0.03,
  };
}

const http = (appCpuUs: number[], requestsPerSecond = 100): HttpMeasure[] =>
  appCpuUs.map((cpu) => ({
    appCpuUs: cpu + 50,
    sharedCpuUs: cpu,
    requestsPerSecond,
    requests: 1000,
    p50Ms: 1,
    p99Ms: 2,
    failures: 0,
  }));

/** A run that meets every target; each test changes one thing. */
function results(): Results {
  const peer = [100, 100, 100];
  return {
    startedAt: '',
    quick: false,
    durationSeconds: 1,
    machine: {},
    standalone: {
      tokenBucket: row([200, 200, 200]),
      counter: row([300, 300, 300], 1, 2),
      'tokenBucket-b1': row(peer, 5, 6),
      'counter-b1': row(peer, 5, 4),
      rlf: row(peer, 5, 10),
      'rlf+ap': row(peer, 5, 10),
    },
    cluster: { counter: row([160, 160, 160]), rlf: row(peer), 'rlf+ap': row(peer) },
    http: {
      tool: 'wrk',
      load: { connections: 50, duration: 4, rounds: 3 },
      runs: {
        none: http([100, 100, 100]),
        ours: http([101, 102, 101]),
        throttler: http([120, 140, 130]),
      },
      flood: { ours: { commands: 0, denied: 1000 } },
    },
    flood: { tokenBucket: 0, counter: 1 },
    memory: [
      {
        id: 'tokenBucket',
        label: '',
        limit: 10,
        requests: 3,
        bytes: 72,
        keysPerLimit: 1,
        encoding: 'int',
      },
    ],
  };
}

const verdict = (r: Results, id: string) => {
  const found = evaluateTargets(r).find((v) => v.id === id);
  if (!found) throw new Error(`no target ${id}`);
  return found;
};

describe('bench round comparison', () => {
  it('takes the median of the per-round ratios, symmetric for an even count of rounds', () => {
    expect(medianRoundRatio([4, 2, 6], [1, 4, 2])).toBeCloseTo(3, 12);
    const a = [120, 90, 200, 75];
    const b = [100, 100, 100, 100];
    expect(medianRoundRatio(a, b)).toBeCloseTo(Math.sqrt(1.2 * 0.9), 12);
    expect(medianRoundRatio(a, b) * medianRoundRatio(b, a)).toBeCloseTo(1, 12);
  });

  it('refuses rounds that do not pair up', () => {
    expect(() => medianRoundRatio([1, 2], [1])).toThrow('rounds differ: 2 against 1');
    expect(() => medianRoundRatio([1, 0], [1, 1])).toThrow('a round without a positive figure');
  });

  it('judges "at least" on the lower estimator and "at most" on the higher', () => {
    const c = compareRounds([4, 2, 6], [1, 4, 2]);
    expect(c.perRound).toBeCloseTo(3, 12);
    expect(c.ofMedians).toBe(2);
    expect(atLeastJudged(c)).toBe(2);
    expect(atMostJudged(c)).toBeCloseTo(3, 12);
  });
});

describe('bench targets', () => {
  it('meets every target on a run built to meet them', () => {
    expect(evaluateTargets(results()).filter((v) => !v.met)).toEqual([]);
  });

  it('compares with the auto-pipelining setting of the peer that is harder for us', () => {
    const r = results();
    r.standalone['rlf+ap'] = row([120, 150, 130]);
    const v = verdict(r, 'library-counter');
    expect(v.met).toBe(false);
    expect(v.measured).toBe(
      '2.31× (median of per-round ratios 2.31×, ratio of medians 2.31×; against rlf+ap)',
    );
  });

  it('misses a ratio that only the per-round median reaches', () => {
    const r = results();
    r.cluster.counter = row([160, 320, 180]);
    r.cluster.rlf = row([100, 200, 150]);
    const v = verdict(r, 'cluster-counter');
    expect(v.measured).toContain('median of per-round ratios 1.60×, ratio of medians 1.20×');
    expect(v.met).toBe(false);
  });

  it('judges the CPU per decision targets against rate-limiter-flexible’s cheaper setting', () => {
    const r = results();
    r.standalone.counter = row([300, 300, 300], 2.1, 3.5);
    r.standalone['rlf+ap'] = row([100, 100, 100], 4.2, 7);
    expect(verdict(r, 'node-cpu').measured).toBe(
      'tokenBucket 0.24× (median of per-round ratios 0.24×, ratio of medians 0.24×); ' +
        'counter 0.50× (median of per-round ratios 0.50×, ratio of medians 0.50×)',
    );
    expect(verdict(r, 'node-cpu').met).toBe(false);
    expect(verdict(r, 'redis-cpu').measured).toContain('counter 0.50×');
    expect(verdict(r, 'redis-cpu').met).toBe(false);
  });

  it('measures the CPU our guard adds against the CPU @nestjs/throttler adds, per round and of medians', () => {
    const r = results();
    // Per round: 1/20, 2/40, 1/30; of the medians: (101 - 100) / (130 - 100).
    expect(addedCpuRatio(r.http).perRound).toBeCloseTo(1 / 20, 12);
    expect(addedCpuRatio(r.http).ofMedians).toBeCloseTo(1 / 30, 12);
    r.http.runs.ours = http([104, 103, 105]);
    expect(verdict(r, 'http-cpu').measured).toBe(
      '0.17× (median of per-round ratios 0.17×, ratio of medians 0.13×; medians: ours adds 4.00 µs, @nestjs/throttler 30.00 µs)',
    );
    expect(verdict(r, 'http-cpu').met).toBe(false);
  });

  it('fails the memory target when MEMORY USAGE found no key', () => {
    const r = results();
    r.memory[0].bytes = 0;
    expect(verdict(r, 'token-bucket-bytes').met).toBe(false);
  });

  it('judges Redis CPU per decision against the peer at as many in flight, per algorithm', () => {
    const r = results();
    const runs = (...figures: number[]) => figures.map((figure) => [figure, figure, figure]);
    r.engineCost = {
      batches: [1, 10, 50, 200],
      peer: runs(4, 3, 3, 2),
      ours: { counter: runs(4.4, 2, 1.5, 0.9), tokenBucket: runs(3.9, 3, 2, 1.3) },
    };
    const met = (id: string) => verdict(r, id).met;
    expect([met('redis-cpu counter 1'), met('redis-cpu counter 200')]).toEqual([false, true]);
    expect([met('redis-cpu tokenBucket 1'), met('redis-cpu tokenBucket 200')]).toEqual([
      true,
      false,
    ]);
    expect(verdict(r, 'redis-cpu counter 1').measured).toMatch(/^1\.10×/);
    // No rows for an algorithm: no verdict rather than a miss.
    expect(evaluateTargets(r).some((v) => v.id.startsWith('redis-cpu slidingLog'))).toBe(false);
  });

  it('judges 10,000 plans against 10 on each store, at most 1.1× on the less kind estimator', () => {
    const r = results();
    const plans = (ten: number[], tenThousand: number[]) => ({
      tenants10: ten,
      tenants10k: tenThousand,
      keys10k: [1, 1, 1],
    });
    r.guard = {
      static: [1, 1, 1],
      function: [2, 2, 2],
      ...plans([4, 4, 4], [4.4, 4.2, 4.2]),
      onRedis: plans([6, 6, 6], [6, 9, 6.5]),
    };
    expect(verdict(r, 'plans in memory')).toMatchObject({
      met: true,
      measured: expect.stringMatching(/^1\.05×/),
    });
    // Per round 1.08× (6.5 / 6), of the medians 1.08×: one slow round alone does not miss.
    expect(verdict(r, 'plans on Redis').met).toBe(true);
    r.guard.onRedis = plans([6, 6, 6], [6.5, 7, 6.7]);
    expect(verdict(r, 'plans on Redis')).toMatchObject({
      met: false,
      measured: expect.stringMatching(/^1\.12×/),
    });
  });
});
