import { MemoryDenialLog, memberOf } from '../../../src/admin/denial-log';

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
});
