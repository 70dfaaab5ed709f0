import fc from 'fast-check';
import { LIMIT_KINDS } from '../../src/algorithms/registry';
import {
  MAX_COUNT,
  MAX_MICROS,
  MAX_RATE,
  MAX_SECONDS,
  MIN_RATE,
  MIN_SECONDS,
} from '../../src/algorithms/option-rules';
import { Decision } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * Redis (with `now` given) and the memory store take the same decisions on every value the
 * options accept, ends of the ranges included (docs/option-ranges.md): a value Redis cannot
 * honour is refused at start-up, so none reaches a decision that errors on one store only.
 *
 * Keys expire on Redis's real clock, the twins on the injected one: Redis's keys are given a
 * TTL of a century after each step, so none leaves Redis before it leaves memory (keeping a key
 * longer decides nothing: each TTL ends when the state no longer changes a decision, which
 * this checks too). A state Redis would expire before that PERSIST arrives is left out: the
 * states compared live 1 s at least (windows, leases, `expire`, a leaky bucket's takes of a
 * second's worth), the blocks over their whole range. The fixed window times its windows by Redis TTLs alone:
 * its steps stay within one window.
 */
/** Longer than any state the steps make lives. */
const KEPT_MS = 100 * 365 * 86_400_000;

describe('Redis and memory agree on every accepted option value', () => {
  const twins = useTwinStores(0);
  let run = 0;

  /** Log-uniform in [min, max], the ends weighed in. */
  const between = (min: number, max: number) =>
    fc.oneof(
      { arbitrary: fc.constantFrom(min, max), weight: 1 },
      {
        arbitrary: fc
          .double({ min: Math.log(min), max: Math.log(max), noNaN: true })
          .map((x) => Math.min(max, Math.max(min, Math.exp(x)))),
        weight: 3,
      },
    );
  const seconds = between(MIN_SECONDS, MAX_SECONDS);
  /** What a state lives at least, from 1 s (see above). */
  const span = between(1, MAX_SECONDS);
  const count = (max = MAX_COUNT) => between(1, max).map(Math.round);
  const block = fc.oneof(
    fc.constant(undefined),
    seconds,
    fc.tuple(seconds, seconds).map(([a, b]) => [a, b]),
  );

  /** A step: a share of the limit's span to move on, and a share of its limit to take. */
  const steps = fc.array(
    fc.record({
      advance: fc.oneof(fc.constant(0), fc.double({ min: 0, max: 1.5, noNaN: true })),
      take: fc.oneof(
        fc.constantFrom(0, 1, 2),
        fc.constantFrom('limit', 'over'),
        fc.double({ min: 0, max: 1, noNaN: true }),
      ),
    }),
    { minLength: 1, maxLength: 6 },
  );
  /** The permits of a step; a request that takes any takes `least` at least. */
  const permitsOf = (take: number | string, limit: number, least: number) => {
    const permits =
      take === 'limit'
        ? limit
        : take === 'over'
          ? limit + 1
          : Number.isInteger(take)
            ? (take as number)
            : Math.floor((take as number) * limit);
    return permits === 0 ? 0 : Math.max(permits, least);
  };

  /**
   * Compiles `options` as the decorator does (so the values are accepted), then runs the
   * steps on both stores and compares: `span` (seconds) scales the clock's moves.
   */
  async function agree(
    name: string,
    options: Record<string, unknown>,
    span: number,
    plan: { advance: number; take: number | string }[],
    compared: (decision: Decision) => unknown = (decision) => decision,
    least = 1,
  ): Promise<void> {
    const kind = LIMIT_KINDS.find((candidate) => candidate.name === name)!;
    const compiled = kind.compile({ ...options }, `@Range on C.m`);
    const limit = compiled.algorithm.limit(compiled.params);
    const key = `range:${name}:${++run}`;
    twins.nowMs = 1_700_000_000_000;
    for (const { advance, take } of plan) {
      twins.nowMs += advance * span * 1000;
      const request = compiled.newRequest(permitsOf(take, limit, least));
      const { algorithm, params } = compiled;
      const fromRedis = await twins.redis.evaluate({ algorithm, key, params, request });
      // A century, not PERSIST: a key without a TTL (-1) reads as shorter than any, and a block's
      // write would cut it to the block's last milliseconds.
      if (name !== 'countLimit') await twins.client.pexpire(key, KEPT_MS);
      const fromMemory = await twins.memory.evaluate({ algorithm, key, params, request });
      expect(compared(fromMemory)).toEqual(compared(fromRedis));
    }
  }

  const RUNS = { numRuns: 40 };

  it('token bucket: rate, burst or capacity, expire, timeout, block', async () => {
    await fc.assert(
      fc.asyncProperty(
        between(MIN_RATE, MAX_RATE),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom(1, 60, MAX_SECONDS),
        fc.constantFrom(0, 0.5, MAX_SECONDS, Infinity),
        block,
        steps,
        async (rate, share, expire, timeout, blockOption, plan) => {
          // The largest bucket the rate allows fills in 3650 days: a share of it, at least 1.
          const capacity = Math.max(1, Math.floor(share * rate * MAX_SECONDS));
          fc.pre(capacity * (1_000_000 / rate) <= MAX_MICROS);
          const options = { rate, capacity, expire, timeout, block: blockOption };
          await agree('rateLimit', options, capacity / rate, plan);
        },
      ),
      RUNS,
    );
  });

  it('leaky bucket: capacity, rate, block', async () => {
    await fc.assert(
      fc.asyncProperty(
        between(MIN_RATE, MAX_RATE),
        fc.double({ min: 0, max: 1, noNaN: true }),
        block,
        steps,
        async (rate, share, blockOption, plan) => {
          const interval = Math.max(1, Math.round(1_000_000 / rate));
          // Every take is a second's worth at least, so what it writes outlives the PERSIST.
          const least = Math.ceil(1_000_000 / interval);
          const capacity = Math.max(
            least,
            Math.floor(share * Math.min(MAX_COUNT, MAX_MICROS / interval)),
          );
          const options = { rate, capacity, block: blockOption };
          const span = (capacity * interval) / 1e6;
          await agree('leakyBucketLimit', options, span, plan, undefined, least);
        },
      ),
      RUNS,
    );
  });

  it('sliding log: limit, window, block', async () => {
    await fc.assert(
      fc.asyncProperty(count(), span, block, steps, async (limit, window, blockOption, plan) => {
        await agree('slidingWindowLimit', { limit, window, block: blockOption }, window, plan);
      }),
      RUNS,
    );
  });

  it('approximate window: limit * window below 2^53 µs, block', async () => {
    await fc.assert(
      fc.asyncProperty(count(), span, block, steps, async (wanted, window, blockOption, plan) => {
        const micros = Math.round(window * 1_000_000);
        const limit = Math.max(1, Math.min(wanted, Math.floor(Number.MAX_SAFE_INTEGER / micros)));
        const options = { approximate: true, limit, window, block: blockOption };
        await agree('approximateSlidingWindowLimit', options, window, plan);
      }),
      RUNS,
    );
  });

  it('concurrency: max, lease', async () => {
    await fc.assert(
      fc.asyncProperty(count(), span, steps, async (max, lease, plan) => {
        await agree('concurrencyLimit', { max, lease }, lease, plan);
      }),
      RUNS,
    );
  });

  it('fixed window: limit, period, block (within a window: windows end on Redis time)', async () => {
    const counts = ({ allowed, limit, remaining, waitMs }: Decision) => ({
      allowed,
      limit,
      remaining,
      waitMs,
    });
    await fc.assert(
      fc.asyncProperty(
        count(),
        between(10, MAX_SECONDS),
        block,
        steps,
        async (limit, period, blockOption, plan) => {
          const still = plan.map((step) => ({ ...step, advance: 0 }));
          await agree('countLimit', { limit, period, block: blockOption }, period, still, counts);
        },
      ),
      RUNS,
    );
  });
});
