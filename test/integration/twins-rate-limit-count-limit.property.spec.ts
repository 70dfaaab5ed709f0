import fc from 'fast-check';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { Decision } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * The Lua scripts (RedisStore with an injected clock) and their TypeScript twins
 * (MemoryStore on the same clock) must take the same decisions, with the same waits and
 * remaining counts, for any sequence of requests.
 */
describe('Lua and memory twins agree step by step: rateLimit, countLimit', () => {
  const twins = useTwinStores(0);
  let run = 0;

  const step = fc.record({
    advanceMs: fc.oneof(
      fc.constant(0),
      fc.integer({ min: 1, max: 5_000 }),
      fc.double({ min: 0, max: 500, noNaN: true }),
    ),
    // Volumes 0 (a peek) to beyond the bucket (a request that can never pass).
    permits: fc.integer({ min: 0, max: 12 }),
    timeoutSeconds: fc.constantFrom(0, 0.05, 0.5, 3, Infinity),
  });

  it('rateLimit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0.5, 1, 3, 10, 1 / 60),
        fc.constantFrom(0, 0.1, 1, 2.5, 60),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        fc.array(step, { minLength: 1, maxLength: 40 }),
        async (rate, burst, initialShare, steps) => {
          const key = `twin:tb:${++run}`;
          // Keys live on Redis time but the twin on the injected clock: a long expire keeps both alive.
          const base = rateLimitParams({ rate, burst, expire: 1e6 });
          const initialPermits =
            initialShare === undefined ? undefined : initialShare * base.maxPermits;
          const params = rateLimitParams({ rate, burst, expire: 1e6, initialPermits });
          twins.nowMs = 1_700_000_000_000 + run * 1_000_000;
          for (const { advanceMs, permits, timeoutSeconds } of steps) {
            twins.nowMs += advanceMs;
            const request = {
              permits,
              timeoutMicros: timeoutSeconds === Infinity ? -1 : timeoutSeconds * 1_000_000,
            };
            const fromLua: Decision = await twins.redis.evaluate({
              algorithm: rateLimit,
              key,
              params,
              request,
            });
            const fromMemory = await twins.memory.evaluate({
              algorithm: rateLimit,
              key,
              params,
              request,
            });
            expect(fromMemory).toEqual(fromLua);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('countLimit within a window (windows end on Redis time: see the countLimit spec)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ advanceMs: fc.integer({ min: 0, max: 10 }), volume: fc.nat(8) }), {
          minLength: 1,
          maxLength: 15,
        }),
        async (limit, steps) => {
          const key = `twin:fw:${++run}`;
          const params = countLimitParams({ limit, period: 1_000 });
          // The model: within one window, a request fits while what was allowed plus its
          // permits (at least 1: a request of 0 needs room for one) stays within the limit; a
          // denial counts nothing.
          let counted = 0;
          for (const { advanceMs, volume } of steps) {
            twins.nowMs += advanceMs;
            // Volumes 0 (a peek) to limit + 2 (a request that can never pass).
            const request = { permits: volume % (limit + 3) };
            const fromLua = await twins.redis.evaluate({
              algorithm: countLimit,
              key,
              params,
              request,
            });
            const fromMemory = await twins.memory.evaluate({
              algorithm: countLimit,
              key,
              params,
              request,
            });
            // PTTL in Redis runs on the real clock, the twin on the injected one: compare the
            // decisions and counts; the time left is checked on real time in fixed-window.spec.
            const counts = ({ allowed, limit, remaining, waitMs }: Decision) => ({
              allowed,
              limit,
              remaining,
              waitMs,
            });
            expect(counts(fromMemory)).toEqual(counts(fromLua));
            const fits = counted + Math.max(request.permits, 1) <= limit;
            expect(counts(fromLua)).toEqual({
              allowed: fits,
              limit,
              remaining: limit - counted - (fits ? request.permits : 0),
              waitMs: 0,
            });
            if (fits) counted += request.permits;
            // Allowed: 0; denied: the time left in the window, or -1 when it can never pass.
            const never = request.permits > limit;
            for (const { allowed, retryAfterMs } of [fromLua, fromMemory]) {
              if (never) expect(retryAfterMs).toBe(-1);
              else if (allowed) expect(retryAfterMs).toBe(0);
              else expect(retryAfterMs).toBeGreaterThan(0);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
