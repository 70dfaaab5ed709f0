import fc from 'fast-check';
import { leakyBucketLimit } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitParams } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { leakyBucketLimitDefinition } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { slidingWindowLimitDefinition } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { rateLimitDefinition } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { LimiterAlgorithm, LimiterStore } from '../../src';
import { DecisionGroup } from '../../src/contracts/decision-group';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * A request's limits decided as a group, all or nothing: the engine script (snapshot and
 * restore inside one call) and the memory store (one synchronous run) take the same
 * decisions, undo the same members, and leave the same state behind (read with peek).
 */
/**
 * Times every duration (window, 1 / rates, block, clock moves): Redis expires keys on its real
 * clock and the twin on the injected one, and a loaded machine stalls a step for 100 ms and
 * more; scaled, no state lives less than 40 s, so none expires in real time between two steps.
 */
const TIME_SCALE = 100;

describe('Lua and memory twins agree on all-or-nothing groups', () => {
  const twins = useTwinStores(1_700_000_000_000);
  let run = 0;
  let id = 0;

  const bucket = {
    ...rateLimitParams({
      rate: 2 / TIME_SCALE,
      burst: 2 * TIME_SCALE,
      expire: 1e6 * TIME_SCALE,
    }),
    blockMicros: 0,
  };
  const oneToken = { permits: 1, timeoutMicros: 0 };
  type Member = {
    algorithm: LimiterAlgorithm<any, any, any>;
    key: string;
    params: unknown;
    request: () => unknown;
  };
  const members = (tag: number, blockMicros: number, limit: number): Member[] => [
    { algorithm: rateLimit, key: `g${tag}:tb`, params: bucket, request: () => oneToken },
    {
      algorithm: slidingWindowLimit,
      key: `g${tag}:sw`,
      params: { ...slidingWindowLimitParams({ limit, window: 2 * TIME_SCALE }), blockMicros },
      request: () => ({ id: `m${++id}` }),
    },
    {
      algorithm: leakyBucketLimit,
      key: `g${tag}:lb`,
      params: {
        ...leakyBucketLimitParams({ capacity: limit + 1, rate: 1 / TIME_SCALE }),
        blockMicros,
      },
      request: () => undefined,
    },
  ];
  const peeks: { ops: { peek: LimiterAlgorithm<any, any, any> }; request: unknown }[] = [
    { ops: rateLimitDefinition.ops, request: oneToken },
    { ops: slidingWindowLimitDefinition.ops, request: { id: 'peek' } },
    { ops: leakyBucketLimitDefinition.ops, request: undefined },
  ];

  /** Every member in one turn, so the RedisStore sends them in one engine call. */
  function decideGroup(store: LimiterStore, group: Member[], requests: unknown[]) {
    const together = new DecisionGroup(group.length);
    const decisions = Promise.all(
      group.map((m, i) =>
        store.evaluate({
          algorithm: m.algorithm,
          key: m.key,
          params: m.params,
          request: requests[i],
          group: together,
        }),
      ),
    );
    return decisions.then((all) => ({ all, undone: [...together.undone].sort() }));
  }

  it('token bucket, sliding log and leaky bucket on one request', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.constantFrom(0, 0, 400_000 * TIME_SCALE),
        fc.array(
          fc.constantFrom(0, 0, 100, 250, 700).map((ms) => ms * TIME_SCALE),
          { minLength: 1, maxLength: 25 },
        ),
        async (limit, blockMicros, advances) => {
          const group = members(++run, blockMicros, limit);
          twins.nowMs = 1_700_000_000_000 + run * 10_000_000 * TIME_SCALE;
          for (const advance of advances) {
            twins.nowMs += advance;
            const requests = group.map((m) => m.request());
            const fromLua = await decideGroup(twins.redis, group, requests);
            const fromMemory = await decideGroup(twins.memory, group, requests);
            expect(fromMemory).toEqual(fromLua);
            for (let i = 0; i < group.length; i++) {
              const { ops, request } = peeks[i];
              const { key, params } = group[i];
              const peekLua = await twins.redis.evaluate({
                algorithm: ops.peek,
                key,
                params,
                request,
              });
              const peekMemory = await twins.memory.evaluate({
                algorithm: ops.peek,
                key,
                params,
                request,
              });
              expect(peekMemory).toEqual(peekLua);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
