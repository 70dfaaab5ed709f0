import fc from 'fast-check';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import {
  RateLimitRequest,
  rateLimitParams,
} from '../../src/algorithms/rate-limit/rate-limit.model';
import { rateLimitDefinition } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { Decision, RedisStore } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

const T0 = 1_700_000_000_000;
const wait = (permits: number, timeoutSeconds: number): RateLimitRequest => ({
  permits,
  timeoutMicros: timeoutSeconds * 1_000_000,
});
/** The token bucket's refund, as the guard gives back a reservation whose client left. */
const refundOp = rateLimitDefinition.ops.refund!;
const giveBack = (permits: number) => ({ permits, resetLeftMicros: 0 });

describe('giving a rateLimit reservation back', () => {
  const twins = useTwinStores(T0);

  it.each(['redis', 'memory'] as const)(
    '%s: five waiters leave, and the next request waits only for the slot after the last kept one',
    async (storeName) => {
      const store = twins[storeName];
      const key = `refund:${storeName}`;
      // One permit a second, bucket of 1.
      const params = rateLimitParams({ rate: 1, burst: 1 });
      twins.nowMs = T0;
      expect(
        (await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 10) })).waitMs,
      ).toBe(0);
      const waits: number[] = [];
      for (let i = 0; i < 5; i++) {
        waits.push(
          (await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 10) }))
            .waitMs,
        );
      }
      expect(waits).toEqual([1000, 2000, 3000, 4000, 5000]);
      twins.nowMs = T0 + 50;
      for (let i = 0; i < 5; i++) {
        const back = await store.evaluate({
          algorithm: refundOp,
          key,
          params,
          request: giveBack(1),
        });
        expect(back.allowed).toBe(true);
      }
      twins.nowMs = T0 + 200;
      // Without the refunds it would wait 5.8 s.
      expect(
        (await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 10) })).waitMs,
      ).toBe(800);
    },
  );

  it.each(['redis', 'memory'] as const)(
    '%s: a refund never fills the bucket above its size, and a missing bucket is left alone',
    async (storeName) => {
      const store = twins[storeName];
      const key = `refund-cap:${storeName}`;
      const params = rateLimitParams({ rate: 1, burst: 3 });
      twins.nowMs = T0 + 1_000_000;
      await store.evaluate({ algorithm: refundOp, key, params, request: giveBack(2) });
      if (storeName === 'redis') expect(await twins.client.exists(key)).toBe(0);
      await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 0) });
      await store.evaluate({ algorithm: refundOp, key, params, request: giveBack(2) });
      const allowed = [];
      for (let i = 0; i < 4; i++) {
        allowed.push(
          (await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 0) }))
            .allowed,
        );
      }
      expect(allowed).toEqual([true, true, true, false]);
    },
  );

  it('a refund is never answered by a remembered denial', async () => {
    const store = new RedisStore({ client: twins.client, now: () => twins.nowMs });
    const key = 'refund:denial-cache';
    const params = rateLimitParams({ rate: 1, burst: 1 });
    twins.nowMs = T0 + 2_000_000;
    await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 0) });
    expect(
      (await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 0) })).allowed,
    ).toBe(false);
    await store.evaluate({ algorithm: refundOp, key, params, request: giveBack(1) });
    // The remembered denial is forgotten: the permit given back is there to take.
    expect(
      (await store.evaluate({ algorithm: rateLimit, key, params, request: wait(1, 0) })).allowed,
    ).toBe(true);
  });

  it('Lua and memory agree on any mix of reservations and refunds', async () => {
    let run = 0;
    const step = fc.record({
      advanceMs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3_000 })),
      permits: fc.integer({ min: 1, max: 3 }),
      refund: fc.boolean(),
      timeoutSeconds: fc.constantFrom(0, 0.5, 3, 30),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0.5, 1, 3, 10),
        fc.constantFrom(0.5, 1, 2.5),
        fc.array(step, { minLength: 1, maxLength: 30 }),
        async (rate, burst, steps) => {
          const key = `refund:twin:${++run}`;
          const params = rateLimitParams({ rate, burst, expire: 1e6 });
          twins.nowMs = T0 + 10_000_000 + run * 1_000_000;
          for (const { advanceMs, permits, refund, timeoutSeconds } of steps) {
            twins.nowMs += advanceMs;
            const timeout = permits > params.maxPermits ? 30 : timeoutSeconds;
            const [algorithm, request] = refund
              ? [refundOp, giveBack(permits)]
              : [rateLimit, wait(permits, timeout)];
            const fromLua: Decision = await twins.redis.evaluate({
              algorithm: algorithm as typeof rateLimit,
              key,
              params,
              request: request as RateLimitRequest,
            });
            const fromMemory = await twins.memory.evaluate({
              algorithm: algorithm as typeof rateLimit,
              key,
              params,
              request: request as RateLimitRequest,
            });
            expect(fromMemory).toEqual(fromLua);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
