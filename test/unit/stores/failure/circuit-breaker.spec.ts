import {
  CircuitBreaker,
  PROBE_INTERVAL_MS,
  TIMEOUTS_TO_OPEN,
} from '../../../../src/stores/failure/circuit-breaker';

describe('CircuitBreaker', () => {
  let nowMs = 0;
  const breaker = () => new CircuitBreaker(() => nowMs);
  beforeEach(() => (nowMs = 1_000));

  it(`opens after ${TIMEOUTS_TO_OPEN} timeouts in a row, not before`, () => {
    const b = breaker();
    for (let i = 1; i < TIMEOUTS_TO_OPEN; i++) b.timedOut();
    expect([b.isOpen, b.allows()]).toEqual([false, true]);
    b.timedOut();
    expect([b.isOpen, b.allows()]).toEqual([true, false]);
  });

  it('counts only timeouts in a row: an answer in between starts over', () => {
    const b = breaker();
    b.timedOut();
    b.timedOut();
    b.answered();
    b.timedOut();
    b.timedOut();
    expect(b.isOpen).toBe(false);
  });

  it(`lets one probe through every ${PROBE_INTERVAL_MS} ms while open, and closes on an answer`, () => {
    const b = breaker();
    for (let i = 0; i < TIMEOUTS_TO_OPEN; i++) b.timedOut();
    const trace: string[] = [];
    for (const at of [0, 100, 249, 250, 251, 400, 500, 501]) {
      nowMs = 1_000 + at;
      trace.push(`${at}:${b.allows() ? 'probe' : 'skip'}`);
    }
    expect(trace).toEqual([
      '0:skip',
      '100:skip',
      '249:skip',
      '250:probe',
      '251:skip',
      '400:skip',
      '500:probe',
      '501:skip',
    ]);
    b.answered();
    expect([b.isOpen, b.allows(), b.allows()]).toEqual([false, true, true]);
  });
});
