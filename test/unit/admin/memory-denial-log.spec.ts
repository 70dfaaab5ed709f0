import { MemoryDenialLog, memberOf } from '../../../src/admin/denial-log';
import { MinuteCounts } from '../../../src/admin/minute-counts';

/**
 * The in-memory denial log under a flood of distinct keys (each denied once): it keeps a
 * bounded number per minute, as the Redis log reads a bounded number per minute, and `top`
 * still finds the key denied again and again among them.
 */
const ref = { limit: '@CountLimit on AppController.get', name: 'short' };
const FLOOD = 200_000;

describe('MemoryDenialLog', () => {
  it('keeps a bounded number of keys per minute, and the most denied among them', async () => {
    const log = new MemoryDenialLog();
    const nowMs = Date.now();
    const minute = Math.floor(nowMs / 60_000);
    for (let start = 0; start < FLOOD; start += 10_000) {
      const counts = new Map<string, number>();
      for (let i = start; i < start + 10_000; i++) counts.set(memberOf(ref, `10.${i}`), 1);
      counts.set(memberOf(ref, 'hot'), 3);
      await log.add({ minute, counts, untilMs: new Map() });
    }
    const everyRow = await log.top(15, nowMs, FLOOD);
    expect(everyRow.length).toBe(200);
    expect(everyRow[0]).toEqual({ ...ref, key: 'hot', count: 60 });
    expect(await log.top(15, nowMs, 1)).toEqual([{ ...ref, key: 'hot', count: 60 }]);
  });

  it('holds at most twice the members it keeps, whatever it is given, the most denied first', () => {
    const counts = new MinuteCounts(10);
    let most = 0;
    for (let i = 0; i < 10_000; i++) {
      counts.add(`10.0.${i}`, 1);
      if (i % 4 === 0) counts.add('hot', 1);
      if (i % 8 === 0) counts.add('warm', 1);
      most = Math.max(most, counts.top(Infinity).length);
    }
    expect(most).toBe(20);
    expect(counts.top(2)).toEqual([
      ['hot', 2500],
      ['warm', 1250],
    ]);
  });
});
