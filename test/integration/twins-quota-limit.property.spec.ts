import fc from 'fast-check';
import { quotaLimit } from '../../src/algorithms/quota-limit/quota-limit.definition';
import {
  cyclesAround,
  quotaLimitParams,
  QuotaRequest,
} from '../../src/algorithms/quota-limit/quota-limit.model';
import { cycleAt } from '../../src/calendar/calendar-cycle';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { DecisionGroup } from '../../src/contracts/decision-group';
import { LimiterStore } from '../../src';
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

  /**
   * A quota with idempotency keys grouped with a gate (a count limit of 1 whose key is used
   * up, or a fresh one): a group the gate denies charges nothing and remembers no key, so
   * usage is exactly the distinct keys charged in groups the gate allowed, on both stores.
   */
  it('quotaLimit in groups: a charge given back forgets its idempotency key', async () => {
    const gate = { ...countLimitParams({ limit: 1, period: 86_400 }), blockMicros: 0 };
    const usageOf = async (store: LimiterStore, key: string, request: QuotaRequest) =>
      (await store.evaluate({ algorithm: quotaLimit, key, params, request })).quota?.used;
    const params = quotaLimitParams({ limit: 6, cycle: 'month', idempotencyWindow: '3650d' });
    const step = fc.record({
      shut: fc.boolean(),
      id: fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'), { nil: undefined }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 20 }), async (steps) => {
        const key = `twin:quota:group:${++run}`;
        twins.nowMs = Date.UTC(2026, 4, 10) + run * 1000;
        const cycles = cyclesAround(params, twins.nowMs);
        const shut = `twin:gate:${run}:shut`;
        for (const store of [twins.redis, twins.memory]) {
          await store.evaluate({
            algorithm: countLimit,
            key: shut,
            params: gate,
            request: { permits: 1 },
          });
        }
        const charged = new Set<string>();
        let used = 0;
        let opened = 0;
        for (const { shut: denies, id } of steps) {
          const gateKey = denies ? shut : `twin:gate:${run}:${++opened}`;
          const request: QuotaRequest = { permits: 1, idempotencyKey: id, cycles };
          const decide = (store: LimiterStore) => {
            const together = new DecisionGroup(2);
            return Promise.all([
              store.evaluate({ algorithm: quotaLimit, key, params, request, group: together }),
              store.evaluate({
                algorithm: countLimit,
                key: gateKey,
                params: gate,
                request: { permits: 1 },
                group: together,
              }),
            ]).then((all) => all.map((decision) => decision.allowed));
          };
          const fromLua = await decide(twins.redis);
          const fromMemory = await decide(twins.memory);
          expect(fromMemory).toEqual(fromLua);
          const repeat = id !== undefined && charged.has(id);
          if (!denies && !repeat && used < params.limit) {
            used++;
            if (id !== undefined) charged.add(id);
          }
          const usage: QuotaRequest = { permits: 0, cycles };
          const both = [
            await usageOf(twins.redis, key, usage),
            await usageOf(twins.memory, key, usage),
          ];
          if (both[0] !== used || both[1] !== used)
            expect({ step: steps, both }).toEqual({ step: steps, both: [used, used] });
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});
