import { approximateSlidingWindowLimit } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { approximateSlidingWindowLimitDefinition } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { leakyBucketLimit } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitParams } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { leakyBucketLimitDefinition } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { slidingWindowLimitDefinition } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { StateOps } from '../../src/algorithms/state-ops/state-ops';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { rateLimitDefinition } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { Decision, LimiterAlgorithm } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/** Steps of 1 s then 2 s, on limits of one request per 100 ms: the block decides Retry-After. */
const STEPS = { blockMicros: 1_000_000, blockStepsMicros: [1_000_000, 2_000_000] };

let id = 0;
const KINDS: [
  string,
  LimiterAlgorithm<any, any, any>,
  StateOps<any, any, any>,
  unknown,
  () => unknown,
][] = [
  [
    'token bucket',
    rateLimit,
    rateLimitDefinition.ops,
    rateLimitParams({ rate: 10, burst: 0.1, expire: 1 }),
    () => ({ permits: 1, timeoutMicros: 0 }),
  ],
  [
    'leaky bucket',
    leakyBucketLimit,
    leakyBucketLimitDefinition.ops,
    leakyBucketLimitParams({ capacity: 1, rate: 10 }),
    () => undefined,
  ],
  [
    'sliding-window log',
    slidingWindowLimit,
    slidingWindowLimitDefinition.ops,
    slidingWindowLimitParams({ limit: 1, window: 0.1 }),
    () => ({ id: `r${++id}` }),
  ],
  [
    'approximate sliding window',
    approximateSlidingWindowLimit,
    approximateSlidingWindowLimitDefinition.ops,
    slidingWindowLimitParams({ limit: 1, window: 0.1 }),
    () => ({ permits: 1 }),
  ],
];

/**
 * Escalating blocks step by step, in the engine's Lua (RedisStore on an injected clock) and
 * in the memory twins, which must agree to the microsecond.
 */
describe.each(KINDS)('escalating blocks: %s', (_name, algorithm, ops, base, newRequest) => {
  const twins = useTwinStores(1_700_000_000_000);
  const params = { ...(base as object), ...STEPS };
  let key = '';
  let run = 0;
  beforeEach(() => {
    key = `escalate:${_name}:${++run}`;
  });

  async function at(ms: number, operation = algorithm, request = newRequest()): Promise<Decision> {
    twins.nowMs = 1_700_000_000_000 + run * 100_000_000 + ms;
    const fromLua = await twins.redis.evaluate({ algorithm: operation, key, params, request });
    const fromMemory = await twins.memory.evaluate({ algorithm: operation, key, params, request });
    expect(fromMemory).toEqual(fromLua);
    return fromLua;
  }
  const denial = (decision: Decision) => (decision.allowed ? 'allowed' : decision.retryAfterMs);

  it('blocks 1 s, then 2 s for each further violation, then 1 s again after 2 s of quiet', async () => {
    const trace = [
      await at(0),
      await at(1), // violation 1: 1 s
      await at(500), // still blocked, not extended
      await at(1_100),
      await at(1_101), // violation 2: 2 s
      await at(3_200),
      await at(3_201), // violation 3: the last step again
      await at(5_300), // allowed 99 ms after the block: the level is kept
      await at(7_100), // 1.9 s after the block's end: not quiet long enough
      await at(7_101), // violation 4, still 2 s
      await at(9_101 + 2_000), // quiet for 2 s after the block
      await at(9_101 + 2_001), // violation 5: back to 1 s
    ].map(denial);
    expect(trace).toEqual([
      'allowed',
      1000,
      501,
      'allowed',
      2000,
      'allowed',
      2000,
      'allowed',
      'allowed',
      2000,
      'allowed',
      1000,
    ]);
    // The key outlives the block by the last step, so the level is remembered.
    const pttl = await twins.client.pttl(key);
    expect(pttl).toBeGreaterThan(2_000);
  });

  it('a refund keeps the level; a block set by hand and a reset start again', async () => {
    expect([await at(0), await at(1)].map(denial)).toEqual(['allowed', 1000]);
    if (ops.refund) await at(1_050, ops.refund, { permits: 1 });
    expect([await at(1_100), await at(1_101)].map(denial)).toEqual(['allowed', 2000]);
    await at(3_200, ops.reset, undefined);
    expect([await at(3_300), await at(3_301)].map(denial)).toEqual(['allowed', 1000]);
    await at(4_400, ops.block, 100_000);
    expect([await at(4_600), await at(4_601)].map(denial)).toEqual(['allowed', 1000]);
    const peek = await at(4_700, ops.peek, newRequest());
    expect(peek.waitMs).toBe(901);
  });
});
