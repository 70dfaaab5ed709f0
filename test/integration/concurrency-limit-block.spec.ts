import fc from 'fast-check';
import { concurrencyLimit } from '../../src/algorithms/concurrency-limit/concurrency-limit.definition';
import { concurrencyLimitParams } from '../../src/algorithms/concurrency-limit/concurrency-limit.model';
import { concurrencyLimitOps } from '../../src/algorithms/concurrency-limit/concurrency-limit.definition';
import { MemoryStore, RateLimiterFactory } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/** block(seconds) on the concurrency limiter: acquires refused, releases kept. */
describe('concurrencyLimit: a block', () => {
  const twins = useTwinStores(1_700_000_000_000);

  it.each(['redis', 'memory'] as const)(
    'on %s: refuses new slots until the block ends, and releases still count',
    async (kind) => {
      const store = kind === 'redis' ? twins.redis : new MemoryStore({ now: () => twins.nowMs });
      const factory = new RateLimiterFactory(store);
      const limiter = factory.concurrencyLimiter({ key: `block:${kind}`, max: 2, lease: 60 });
      const held = await limiter.tryAcquire();
      expect(held).not.toBeNull();
      await limiter.block(10);
      expect(await limiter.peek()).toEqual({
        limit: 2,
        remaining: 0,
        // Fully restored when the slot in flight ends its 60 s lease.
        resetMs: 60_000,
        blockedMs: 10_000,
      });
      twins.nowMs += 4_000;
      const refused = await limiter.decide('someone');
      expect([refused.allowed, refused.retryAfterMs]).toEqual([false, 6_000]);
      // The slot in flight is given back while the key is blocked.
      const released = await limiter.release(held!.id);
      expect([released.allowed, released.remaining]).toEqual([true, 2]);
      twins.nowMs += 5_999;
      expect(await limiter.tryAcquire()).toBeNull();
      twins.nowMs += 1;
      expect(await limiter.peek()).toMatchObject({ remaining: 2, blockedMs: 0 });
      expect(await limiter.tryAcquire()).not.toBeNull();
      expect(await limiter.tryAcquire()).not.toBeNull();
      expect(await limiter.tryAcquire()).toBeNull();
    },
  );

  it('rejects a block that is not a positive number of seconds', async () => {
    const limiter = new RateLimiterFactory(new MemoryStore()).concurrencyLimiter({
      key: 'k',
      max: 1,
    });
    await expect(limiter.block(0)).rejects.toThrow('block(seconds): a finite number > 0, got 0');
  });

  it('the Lua and the memory twin agree on acquire, release and block in any order', async () => {
    const op = fc.record({
      advance: fc.oneof(
        fc.constant(0),
        fc.constantFrom(250, 1_000),
        fc.integer({ min: 1, max: 3_000 }),
      ),
      kind: fc.constantFrom('acquire', 'acquire', 'release', 'block', 'peek'),
      pick: fc.nat(),
      blockMs: fc.constantFrom(500, 1_000, 2_500),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.array(op, { minLength: 1, maxLength: 30 }),
        async (max, ops) => {
          const key = `twin:ccblock:${++run}`;
          const memory = new MemoryStore({ now: () => twins.nowMs });
          const params = concurrencyLimitParams({ max, lease: 2 });
          const ids: string[] = [];
          for (const { advance, kind, pick, blockMs } of ops) {
            twins.nowMs += advance;
            const both = async (algorithm: any, request: unknown) => {
              const fromLua = await twins.redis.evaluate({ algorithm, key, params, request });
              expect(await memory.evaluate({ algorithm, key, params, request })).toEqual(fromLua);
            };
            if (kind === 'block') await both(concurrencyLimitOps.block, blockMs * 1000);
            else if (kind === 'peek')
              await both(concurrencyLimitOps.peek, concurrencyLimitOps.peekRequest);
            else if (kind === 'release' && ids.length) {
              await both(concurrencyLimit, { op: 'release', id: ids[pick % ids.length] });
            } else {
              ids.push(`id${ids.length}`);
              await both(concurrencyLimit, { op: 'acquire', id: ids[ids.length - 1] });
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
