import { MemoryStore, RateLimiterFactory } from '../../../src';

/**
 * Tenants of weights 1, 2 and 5, each with more callers than its share serves, on one
 * upstream of the memory store: the starts follow the weights. Counts are of starts in a
 * window after the first second (the bucket's first burst and the first asks left out).
 */
describe('fair shares between tenants on the memory store', () => {
  it('a saturated budget is shared by weight, first in first out within a tenant', async () => {
    const factory = new RateLimiterFactory(new MemoryStore());
    const api = factory.upstream({ name: 'shared', rate: 100, capacity: 5, timeout: '30s' });
    const tenants: Array<[string, number]> = [
      ['one', 1],
      ['two', 2],
      ['five', 5],
    ];
    const starts: Array<[number, string, number]> = [];
    const startedAt = performance.now();
    const endAt = startedAt + 3000;
    const loops = tenants.flatMap(([tenant, weight]) =>
      Array.from({ length: 16 }, async () => {
        while (performance.now() < endAt) {
          const asked = performance.now();
          await api.call(() => starts.push([performance.now() - startedAt, tenant, asked]), {
            tenant,
            weight,
          });
        }
      }),
    );
    await Promise.all(loops);
    factory.onApplicationShutdown();
    const counted = starts.filter(([at]) => at >= 1000 && at < 3000);
    const share = (tenant: string) =>
      counted.filter(([, name]) => name === tenant).length / counted.length;
    expect(Math.abs(share('one') - 1 / 8)).toBeLessThanOrEqual(0.1 / 8);
    expect(Math.abs(share('two') - 2 / 8)).toBeLessThanOrEqual(0.1 * (2 / 8));
    expect(Math.abs(share('five') - 5 / 8)).toBeLessThanOrEqual(0.1 * (5 / 8));
    if (process.env.UPSTREAM_REPORT) {
      process.stdout.write(`shares ${share('one')} ${share('two')} ${share('five')}\n`);
    }
    // First in first out within a tenant: its calls start in the order they were made.
    for (const [tenant] of tenants) {
      const asked = starts.filter(([, name]) => name === tenant).map(([, , at]) => at);
      expect(asked).toEqual([...asked].sort((a, b) => a - b));
    }
  });
});
