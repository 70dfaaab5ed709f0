import fc from 'fast-check';
import { quotaLimit } from '../../src/algorithms/quota-limit/quota-limit.definition';
import {
  cyclesAround,
  quotaLimitParams,
  QuotaRequest,
} from '../../src/algorithms/quota-limit/quota-limit.model';
import { cycleAt } from '../../src/calendar/calendar-cycle';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * quota-limit.lua (RedisStore with an injected clock) and its twin (MemoryStore on the same
 * clock) take the same decisions, usage and flags included, for any sequence of consumes,
 * repeats of idempotency keys, credits and moves of the clock across cycles. The clock only
 * lands a minute or more before a cycle's end: keys expire on Redis's real time.
 */
describe('Lua and memory twins agree step by step: quotaLimit', () => {
  const twins = useTwinStores(0);
  let run = 0;

  const step = fc.record({
    // Stay in the cycle, go to a later point of it, or to a later cycle's start.
    move: fc.constantFrom('stay', 'stay', 'within', 'next', 'later'),
    share: fc.double({ min: 0, max: 1, noNaN: true }),
    permits: fc.integer({ min: 0, max: 5 }),
    credit: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 3 })),
    id: fc.option(fc.constantFrom('a', 'b', 'c'), { nil: undefined }),
  });

  it('quotaLimit', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('day', 'week', 'month', 'year'),
        fc.constantFrom('UTC', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu'),
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(step, { minLength: 1, maxLength: 25 }),
        async (cycle, timeZone, limit, softShare, steps) => {
          const key = `twin:quota:${++run}`;
          const softLimit =
            softShare < 0.3 ? undefined : Math.max(1, Math.round(softShare * limit));
          // Idempotency keys expire on Redis's real time too: only their cycle's end may end them here.
          const params = quotaLimitParams({
            limit,
            cycle,
            timeZone,
            softLimit,
            idempotencyWindow: '3650d',
          });
          twins.nowMs = Date.UTC(2026, 0, 1) + run * 7_777_777;
          for (const { move, share, permits, credit, id } of steps) {
            const { startMs, endMs } = cycleAt(params.rule, twins.nowMs);
            const room = endMs - startMs - 60_000;
            if (move === 'within')
              twins.nowMs = Math.max(twins.nowMs, startMs + Math.floor(share * room));
            if (move === 'next') twins.nowMs = endMs;
            if (move === 'later') {
              const { endMs: after } = cycleAt(params.rule, endMs);
              twins.nowMs = after + Math.floor(share * 60_000);
            }
            const request: QuotaRequest = {
              permits,
              credit: credit || undefined,
              idempotencyKey: credit ? undefined : id,
              cycles: cyclesAround(params, twins.nowMs),
            };
            const call = { algorithm: quotaLimit, key, params, request };
            const fromLua = await twins.redis.evaluate(call);
            const fromMemory = await twins.memory.evaluate(call);
            expect(fromMemory).toEqual(fromLua);
          }
        },
      ),
      { numRuns: 120 },
    );
  }, 300_000);
});
