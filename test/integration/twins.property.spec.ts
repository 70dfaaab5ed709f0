import fc from 'fast-check';
import { fixedWindow } from '../../src/algorithms/fixed-window/fixed-window.algorithm';
import { fixedWindowParams } from '../../src/algorithms/fixed-window/fixed-window.model';
import { tokenBucket } from '../../src/algorithms/token-bucket/token-bucket.algorithm';
import { tokenBucketParams } from '../../src/algorithms/token-bucket/token-bucket.model';
import { Decision } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * The Lua scripts (RedisStore with an injected clock) and their TypeScript twins
 * (MemoryStore on the same clock) must take the same decisions, with the same waits and
 * remaining counts, for any sequence of requests.
 */
describe('Lua and memory twins agree step by step', () => {
  const twins = useTwinStores(0);
  let run = 0;

  const step = fc.record({
    advanceMs: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 5_000 }),
      fc.double({ min: 0, max: 500, noNaN: true }),
    ),
    permits: fc.integer({ min: 1, max: 4 }),
    timeoutSeconds: fc.constantFrom(0, 0.05, 0.5, 3, Infinity),
  });

  it('token bucket', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0.5, 1, 3, 10, 1 / 60),
        fc.constantFrom(0, 0.1, 1, 2.5, 60),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        fc.array(step, { minLength: 1, maxLength: 40 }),
        async (rate, burst, initialShare, steps) => {
          const key = `twin:tb:${++run}`;
          // Keys live on Redis time but the twin on the injected clock: a long expire keeps both alive.
          const base = tokenBucketParams({ rate, burst, expire: 1e6 });
          const initialPermits =
            initialShare === undefined ? undefined : initialShare * base.maxPermits;
          const params = tokenBucketParams({ rate, burst, expire: 1e6, initialPermits });
          twins.nowMs = 1_700_000_000_000 + run * 1_000_000;
          for (const { advanceMs, permits, timeoutSeconds } of steps) {
            twins.nowMs += advanceMs;
            // A request that can never be served without waiting is refused before any store.
            const timeout =
              permits > params.maxPermits && timeoutSeconds === 0 ? Infinity : timeoutSeconds;
            const request = {
              permits,
              timeoutMicros: timeout === Infinity ? -1 : timeout * 1_000_000,
            };
            const fromLua: Decision = await twins.redis.evaluate(tokenBucket, key, params, request);
            const fromMemory = await twins.memory.evaluate(tokenBucket, key, params, request);
            expect(fromMemory).toEqual(fromLua);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('fixed-window counter within a window (windows end on Redis time, see fixed-window.spec)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 1, maxLength: 15 }),
        async (limit, advances) => {
          const key = `twin:fw:${++run}`;
          const params = fixedWindowParams({ limit, period: 1_000 });
          for (const advanceMs of advances) {
            twins.nowMs += advanceMs;
            const fromLua = await twins.redis.evaluate(fixedWindow, key, params, undefined);
            const fromMemory = await twins.memory.evaluate(fixedWindow, key, params, undefined);
            // PTTL in Redis runs on the real clock, the twin on the injected one: compare the
            // decisions and counts; the time left is checked on real time in fixed-window.spec.
            const counts = ({ allowed, limit, remaining, waitMs }: Decision) => ({
              allowed,
              limit,
              remaining,
              waitMs,
            });
            expect(counts(fromMemory)).toEqual(counts(fromLua));
            expect(fromMemory.retryAfterMs > 0).toBe(!fromMemory.allowed);
            expect(fromLua.retryAfterMs > 0).toBe(!fromLua.allowed);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
