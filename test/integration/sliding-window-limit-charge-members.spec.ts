import { slidingWindowLimitDefinition } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { LimiterAlgorithm } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * A settled cost's charge and refund on the sliding log keep every permit:
 * the log holds one member per id, so a refund of part of one member can never rename it onto
 * another (Redis's ZADD would merge the two, and the weight of one would be lost).
 */
describe.each(['redis', 'memory'] as const)(
  'slidingWindowLimit charges on the %s store',
  (store) => {
    const twins = useTwinStores(1_700_000_000_000);
    const { ops } = slidingWindowLimitDefinition;
    const params = slidingWindowLimitParams({ limit: 1, window: 0.5 });
    let run = 0;
    let key: string;
    beforeEach(() => {
      key = `sw:charges:${store}:${++run}`;
      twins.nowMs = 1_700_000_000_000 + run * 10_000_000;
    });
    const decide = (algorithm: LimiterAlgorithm<any, any, any>, request: unknown) =>
      twins[store].evaluate({ algorithm, key, params, request });

    it('keeps two charges of one µs apart through refunds (seed -238135992)', async () => {
      const chargedAtMs = twins.nowMs;
      await decide(ops.charge!, { permits: 4 });
      await decide(ops.charge!, { permits: 3 });
      twins.nowMs += 100;
      await decide(ops.refund!, { permits: 1 });
      twins.nowMs += 100;
      await decide(ops.refund!, { permits: 3 });
      // 7 charged, 4 given back: 3 stay in debt until they leave the window, at +500 ms.
      expect(await decide(slidingWindowLimit, { id: 'after', permits: 1 })).toEqual({
        allowed: false,
        limit: 1,
        remaining: 0,
        resetMs: 300,
        retryAfterMs: 300,
        waitMs: 0,
      });
      if (store === 'redis') {
        expect(await twins.client.zrange(key, '0', '-1', 'WITHSCORES')).toEqual([
          `charge:${chargedAtMs * 1000}\u00003`,
          String(chargedAtMs * 1000),
        ]);
      }
    });

    it('counts two charges of the same weight in one µs twice', async () => {
      await decide(ops.charge!, { permits: 3 });
      await decide(ops.charge!, { permits: 3 });
      await decide(ops.refund!, { permits: 5 });
      expect(await decide(slidingWindowLimit, { id: 'after', permits: 1 })).toMatchObject({
        allowed: false,
        remaining: 0,
        retryAfterMs: 500,
      });
    });

    it("adds a request's second charge to its first, at the second's time", async () => {
      expect(await decide(slidingWindowLimit, { id: 'r1', permits: 1 })).toMatchObject({
        allowed: true,
      });
      await decide(ops.charge!, { permits: 2, id: 'r1' });
      twins.nowMs += 100;
      await decide(ops.charge!, { permits: 3, id: 'r1' });
      // r1 (1) at 0 and its charges (5) at +100; a refund of 4 leaves 1 of the charge there.
      await decide(ops.refund!, { permits: 4 });
      twins.nowMs += 400;
      expect(await decide(slidingWindowLimit, { id: 'r2', permits: 1 })).toMatchObject({
        allowed: false,
        retryAfterMs: 100,
      });
      twins.nowMs += 100;
      expect(await decide(slidingWindowLimit, { id: 'r3', permits: 1 })).toMatchObject({
        allowed: true,
        remaining: 0,
      });
    });
  },
);
