import fc from 'fast-check';
import { RateLimiterFactory } from '../../../src';
import { createTestingStore, ManualClock } from '../../../src/testing';
import { oracleCycle, zoneTable } from '../../helpers/calendar-oracle';

const START = Date.UTC(2026, 0, 5, 3);
const ZONE = 'Australia/Lord_Howe';
const table = zoneTable(ZONE, Date.UTC(2025, 0, 1), Date.UTC(2031, 0, 1));
const anchor = {
  month: 1,
  day: 31,
  weekday: 1,
  time: [0, 0, 0, 0] as [number, number, number, number],
};

/**
 * `usage()` on the memory store, 100,000 times, after random consumes, credits, repeats of
 * idempotency keys (remembered 24 h at most) and moves of the testing kit's clock: it always tells what a plain model
 * counts, in the cycle an independent calendar finds (a 31st billing day on Lord Howe Island,
 * whose DST moves clocks by 30 minutes).
 */
describe('QuotaLimiter.usage() on the memory store', () => {
  it('answers 100,000 calls with the model’s usage and the calendar’s cycle', async () => {
    let calls = 0;
    const step = fc.record({
      advanceMs: fc.oneof(
        fc.constant(0),
        fc.integer({ min: 1, max: 3_600_000 }),
        fc.integer({ min: 1, max: 40 * 86_400_000 }),
      ),
      op: fc.constantFrom('consume', 'consume', 'credit', 'repeat'),
      permits: fc.integer({ min: 0, max: 4 }),
      id: fc.integer({ min: 0, max: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 100, maxLength: 100 }), async (steps) => {
        const clock = new ManualClock(START);
        const factory = new RateLimiterFactory(createTestingStore({ clock }));
        const quota = factory.quota({
          key: 'k',
          limit: 10,
          cycle: 'month',
          anchor: 31,
          timeZone: ZONE,
        });
        let model = { start: NaN, used: 0, credit: 0, ids: new Map<number, number>() };
        // Compared once per run: an expect per call would cost more than the calls.
        const got: unknown[] = [];
        const want: unknown[] = [];
        for (const { advanceMs, op, permits, id } of steps) {
          clock.advance(advanceMs);
          const { startMs, endMs } = oracleCycle(table, 'month', anchor, clock.now());
          if (model.start !== startMs)
            model = { start: startMs, used: 0, credit: 0, ids: new Map() };
          const room = 10 + model.credit - model.used;
          if (op === 'credit' && permits > 0) {
            await quota.credit(permits);
            model.credit += permits;
          } else if (op === 'repeat') {
            // Remembered until the cycle ends, 24 h at most.
            const charged = (model.ids.get(id) ?? -Infinity) > clock.now();
            const answer = await quota.consume(1, { idempotencyKey: `id-${id}` });
            got.push([answer.repeated, answer.allowed]);
            want.push([charged, charged || room >= 1]);
            if (!charged && room >= 1) {
              model.ids.set(id, Math.min(endMs, clock.now() + 86_400_000));
              model.used += 1;
            }
          } else if (op === 'consume') {
            const answer = await quota.consume(permits);
            if (permits > 0 && permits <= room) model.used += permits;
            got.push(answer.allowed);
            want.push(Math.max(permits, 1) <= room);
          }
          got.push(await quota.usage());
          calls++;
          want.push({
            used: model.used,
            limit: 10 + model.credit,
            remaining: 10 + model.credit - model.used,
            cycleStart: startMs,
            resetsAt: endMs,
          });
        }
        expect(got).toEqual(want);
      }),
      { numRuns: 1000 },
    );
    expect(calls).toBe(100_000);
  }, 600_000);
});
