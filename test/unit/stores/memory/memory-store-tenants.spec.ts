import { countLimit } from '../../../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../../../src/algorithms/count-limit/count-limit.model';
import { MemoryStore } from '../../../../src';
import { collectGarbage } from '../../../helpers/collect-garbage';

/**
 * A limit per tenant (an option resolved per request from the customer's plan) is a limit of
 * its own per value, so a partition of the memory store per value: each must cost what its
 * keys hold, not room for the store's whole bound of keys.
 */
describe('the memory store with a limit per tenant', () => {
  it('holds 300 limits of one key each in a few MB, each deciding exactly', async () => {
    const store = new MemoryStore({ now: () => 1_000_000 });
    const limits = Array.from({ length: 300 }, (_, i) =>
      countLimitParams({ limit: 1000 + i, period: 60 }),
    );
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const decisions = await Promise.all(
      limits.map((params, i) =>
        store.evaluate({ algorithm: countLimit, key: `tenant:${i}`, params, request: undefined }),
      ),
    );
    const grownMb = (process.memoryUsage().heapUsed - before) / 2 ** 20;
    expect(decisions.map((decision) => decision.remaining)).toEqual(limits.map((_, i) => 999 + i));
    expect(store.size).toBe(300);
    // Room for the default 100,000 keys in each would be gigabytes.
    expect(grownMb).toBeLessThan(32);
  });
});
