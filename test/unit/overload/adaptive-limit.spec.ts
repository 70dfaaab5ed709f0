import { AdaptiveLimit } from '../../../src/overload/adaptive-limit.model';
import { OverloadGate } from '../../../src/overload/overload-gate';
import { overloadSettings } from '../../../src/overload/overload.options';
import { simulate } from './downstream-simulation';

const settings = (options: object = {}) => overloadSettings(options, 'test');

/** `count` requests of `rttMs` each, `inFlight` at a time, starting at `fromMs`; the clock after. */
function steady(
  limit: AdaptiveLimit,
  fromMs: number,
  rttMs: number,
  count: number,
  inFlight: number,
) {
  let now = fromMs;
  const verdicts: string[] = [];
  for (let i = 0; i < count; i++) {
    now += rttMs / inFlight;
    const verdict = limit.sample(now - rttMs, now, inFlight);
    if (verdict) verdicts.push(verdict);
  }
  return { now, verdicts };
}

describe('AdaptiveLimit', () => {
  it('grows while latency stays at its baseline and the limit is in use', () => {
    const limit = new AdaptiveLimit(settings());
    const { verdicts } = steady(limit, 0, 10, 400, 20);
    expect(limit.baseline).toBe(10);
    expect(verdicts.every((v) => v === 'grew')).toBe(true);
    expect(limit.limit).toBeGreaterThan(25);
  });

  it('does not grow while idle: less than half the limit in use', () => {
    const limit = new AdaptiveLimit(settings());
    steady(limit, 0, 10, 400, 5);
    expect(limit.limit).toBe(20);
  });

  it('a stall delaying every reply in flight cuts once, by at most 10 %, and is forgotten', () => {
    const limit = new AdaptiveLimit(settings());
    let { now } = steady(limit, 0, 10, 210, 20);
    const before = limit.limit;
    // 300 ms stalled: the 100 replies in flight all come back 300 ms late, at once.
    const verdicts: string[] = [];
    for (let i = 0; i < 100; i++) {
      const verdict = limit.sample(now - 10 + i * 0.1, now + 300, 20);
      if (verdict) verdicts.push(verdict);
    }
    now += 300;
    const after = steady(limit, now, 10, 400, 20);
    verdicts.push(...after.verdicts);
    expect(verdicts.filter((v) => v !== 'grew' && v !== 'held')).toEqual(['cut']);
    expect(limit.baseline).toBe(10);
    expect(limit.limit).toBeGreaterThan(before);
  });

  it('cuts at most once per round trip: replies admitted before a cut are not judged', () => {
    const limit = new AdaptiveLimit(settings());
    steady(limit, 0, 10, 210, 20);
    const late = (startedAt: number, at: number) => limit.sample(startedAt, at, 20);
    let at = 10_000;
    let verdict: string | undefined;
    while (verdict === undefined) verdict = late(9_000, (at += 1));
    expect(verdict).toBe('cut');
    // 200 more late replies of requests admitted before the cut: nothing judged.
    for (let i = 0; i < 200; i++) expect(late(9_500, (at += 1))).toBe(undefined);
  });

  it('re-learns its baseline when cutting does not bring latency down', () => {
    const limit = new AdaptiveLimit(settings({ initialLimit: 40 }));
    let { now } = steady(limit, 0, 10, 200, 40);
    const verdicts: string[] = [];
    for (let round = 0; round < 20 && !verdicts.includes('relearned'); round++) {
      const result = steady(limit, now, 30, 40, limit.limit);
      now = result.now;
      verdicts.push(...result.verdicts);
    }
    expect(verdicts).toContain('relearned');
    expect(limit.baseline).toBe(30);
    const relearnedAt = limit.limit;
    steady(limit, now, 30, 400, limit.limit);
    expect(limit.limit).toBeGreaterThan(relearnedAt);
  });

  it('aimd: adds one per window, takes 10 % off a window with queueing', () => {
    const limit = new AdaptiveLimit(settings({ algorithm: 'aimd' }));
    const { now, verdicts } = steady(limit, 0, 10, 100, 20);
    expect(verdicts.length).toBeGreaterThan(2);
    expect(verdicts.every((v) => v === 'grew')).toBe(true);
    expect(limit.limit).toBe(20 + verdicts.length);
    const grown = limit.limit;
    // The window open since the last one closed ends first, with its latency of 10 ms.
    const cut = steady(limit, now + 1000, 50, 21, grown);
    expect(cut.verdicts).toEqual(['grew', 'cut']);
    expect(limit.limit).toBe(Math.floor((grown + 1) * 0.9));
  });

  it('stays within minLimit and maxLimit', () => {
    const high = new AdaptiveLimit(settings({ initialLimit: 5, maxLimit: 6 }));
    steady(high, 0, 10, 1000, 6);
    expect(high.limit).toBe(6);
    const low = new AdaptiveLimit(settings({ initialLimit: 3, minLimit: 2 }));
    let now = steady(low, 0, 10, 40, 3).now;
    const seen = new Set<number>();
    for (let i = 0; i < 20; i++) {
      now = steady(low, now + 100, 100 * 2 ** i, 20, 3).now;
      seen.add(low.limit);
    }
    expect(Math.min(...seen)).toBe(2);
  });
});

describe('the gate before a downstream of fixed capacity (simulated clock)', () => {
  // K = 10 servers, S = 20 ms: capacity 500/s, offered 4× that, 20 % critical.
  const run = (serviceMs: (now: number) => number, stalls?: { atMs: number; forMs: number }[]) => {
    const clock = { now: 0 };
    // No critical request waits: no timer runs on the simulated clock.
    const gate = new OverloadGate('sim', settings(), () => clock.now, false);
    return simulate(gate, clock, {
      servers: 10,
      serviceMs,
      offeredPerSecond: 2000,
      seconds: 20,
      stalls,
    });
  };

  it('serves every critical request and keeps the downstream busy at 4× its capacity', () => {
    const seconds = run(() => 20).slice(3, 20);
    for (const s of seconds) {
      expect(s.criticalServed).toBeGreaterThanOrEqual(s.criticalOffered - 2);
      expect(s.served).toBeGreaterThanOrEqual(0.85 * 500);
      expect(s.medianMs).toBeLessThanOrEqual(3 * 20);
    }
  });

  it('a tripled service time: within 5 s latency is back within 3× the new one, goodput >= 80 % of C/3', () => {
    const seconds = run((now) => (now < 8000 ? 20 : 60));
    for (const s of seconds.slice(8 + 5, 20)) {
      expect(s.medianMs).toBeLessThanOrEqual(3 * 60);
      expect(s.served).toBeGreaterThanOrEqual(0.8 * (500 / 3));
    }
  });

  it('a stall of 50 ms every 2 s costs at most one cut each: the limit stays, critical requests pass between stalls', () => {
    const stalls = Array.from({ length: 9 }, (_, i) => ({ atMs: 3000 + i * 2000, forMs: 50 }));
    const seconds = run(() => 20, stalls).slice(2, 20);
    const before = seconds[0].limit;
    for (const s of seconds) expect(s.limit).toBeGreaterThanOrEqual(Math.floor(before * 0.9));
    const between = seconds.filter((_, i) => (i + 2) % 2 === 0);
    // A second's count may include a reply of the second before.
    for (const s of between) expect(s.criticalServed).toBeGreaterThanOrEqual(s.criticalOffered - 1);
  });
});

describe('OverloadGate', () => {
  const fixed = (limit: number, clock: { now: number }) =>
    new OverloadGate(
      'test',
      settings({ initialLimit: limit, minLimit: limit, maxLimit: limit }),
      () => clock.now,
    );
  /** 20 requests of 10 ms one after another: the gate learns a baseline of 10 ms. */
  const learn = (gate: OverloadGate, clock: { now: number }) => {
    for (let i = 0; i < 20; i++) {
      const ticket = gate.admit('normal') as { done(): void };
      clock.now += 10;
      ticket.done();
    }
    expect(gate.snapshot().baselineMs).toBe(10);
  };

  it('admits each class up to its ceiling: critical 10, normal 8, sheddable 6 of a limit of 10', () => {
    const gate = fixed(10, { now: 0 });
    const admitted = (priority: 'critical' | 'normal' | 'sheddable', count: number) =>
      Array.from({ length: count }, () => gate.admit(priority)).filter(Boolean).length;
    expect([admitted('sheddable', 9), admitted('normal', 5), admitted('critical', 5)]).toEqual([
      6, 2, 2,
    ]);
    expect(gate.snapshot().refused).toEqual({ critical: 3, normal: 3, sheddable: 3 });
  });

  it('a critical request that finds it full waits up to one baseline latency for a slot, before later ones', async () => {
    const clock = { now: 0 };
    const gate = fixed(2, clock);
    learn(gate, clock);
    const running = [gate.admit('normal'), gate.admit('normal')] as { done(): void }[];
    const first = gate.admit('critical');
    const second = gate.admit('critical');
    expect(first).toBeInstanceOf(Promise);
    expect(gate.admit('sheddable')).toBeUndefined();
    running[0].done();
    // The freed slot went to the first critical request waiting, not to a newcomer.
    expect(gate.admit('normal')).toBeUndefined();
    expect(await first).toEqual(expect.objectContaining({ done: expect.any(Function) }));
    expect(gate.inFlight).toBe(2);
    // The second waits 10 ms, finds no slot, and is refused.
    expect(await second).toBeUndefined();
    expect(gate.snapshot().refused).toEqual({ critical: 1, normal: 1, sheddable: 1 });
  });
});
