import fc from 'fast-check';
import { concurrencyLimit } from '../../src/algorithms/concurrency-limit/concurrency-limit.definition';
import {
  concurrencyLimitParams,
  ConcurrencyLimitRequest,
} from '../../src/algorithms/concurrency-limit/concurrency-limit.model';
import { leakyBucketLimit } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitParams } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { Decision, LimiterAlgorithm } from '../../src';
import { useTwinStores } from '../helpers/twin-stores';

/**
 * The sliding-window, concurrency and leaky-bucket scripts (RedisStore with an injected
 * clock) and their TypeScript twins (MemoryStore on the same clock) take the same
 * decisions, to the microsecond, for any sequence of requests.
 *
 * Keys expire on Redis's real clock while the twins expire on the injected one; both
 * expire only state that decides nothing any more. A step takes a few ms of real time, but
 * a loaded machine stalls one for 100 ms and more: every window, lease, emission interval
 * and clock move is scaled by {@link TIME_SCALE}, so the shortest state lives 33 s and no
 * key expires on Redis's real clock between two steps.
 */
const TIME_SCALE = 100;

describe('Lua and memory twins agree step by step: slidingWindowLimit, concurrencyLimit, leakyBucketLimit', () => {
  const twins = useTwinStores(1_700_000_000_000);
  let run = 0;

  /** A step of time: often none (simultaneous requests), round or any whole ms, or fractions. */
  const advanceMs = fc.oneof(
    { arbitrary: fc.constant(0), weight: 2 },
    // Round steps land exactly on window, lease and emission boundaries: weigh them most.
    {
      arbitrary: fc.constantFrom(100, 250, 500, 1_000).map((ms) => ms * TIME_SCALE),
      weight: 4,
    },
    { arbitrary: fc.integer({ min: 1, max: 3_000 * TIME_SCALE }), weight: 1 },
    { arbitrary: fc.double({ min: 0, max: 400 * TIME_SCALE, noNaN: true }), weight: 1 },
  );

  /**
   * A request's volume: mostly 1, else 0 (a peek) to limit + 2 (beyond the limit: it can
   * never pass), so weighted members, peeks and refusals all occur.
   */
  const volume = fc.oneof(
    { arbitrary: fc.constant(-1), weight: 2 },
    { arbitrary: fc.nat(100), weight: 3 },
  );
  const volumeOf = (pick: number, limit: number) => (pick < 0 ? 1 : pick % (limit + 3));

  /** Both outcomes must occur, or the property proved little. */
  let seen: { allowed: number; denied: number };
  beforeEach(() => {
    seen = { allowed: 0, denied: 0 };
  });
  afterEach(() => {
    expect(seen.allowed).toBeGreaterThan(0);
    expect(seen.denied).toBeGreaterThan(0);
  });

  /** Runs the same request on both stores and asserts the same decision. */
  async function both<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
    /** One key's state whatever its params (options resolved per request), as the guard's. */
    partition?: object,
  ): Promise<void> {
    const fromLua: Decision = await twins.redis.evaluate({ algorithm, key, params, request });
    const fromMemory = await twins.memory.evaluate({ algorithm, key, params, request, partition });
    expect(fromMemory).toEqual(fromLua);
    seen[fromLua.allowed ? 'allowed' : 'denied']++;
  }

  it('sliding-window log', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0.5, 1, 2.5, 10).map((seconds) => seconds * TIME_SCALE),
        fc.array(fc.tuple(advanceMs, volume), { minLength: 1, maxLength: 40 }),
        async (limit, window, steps) => {
          const key = `twin:sw:${++run}`;
          const params = slidingWindowLimitParams({ limit, window });
          for (const [i, [advance, pick]] of steps.entries()) {
            twins.nowMs += advance;
            await both(slidingWindowLimit, key, params, {
              id: `r${i}`,
              permits: volumeOf(pick, limit),
            });
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('concurrency limit', async () => {
    const op = fc.record({
      advance: advanceMs,
      kind: fc.constantFrom('acquire', 'acquire', 'renew', 'release', 'release-unknown'),
      pick: fc.nat(),
      volume,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(0.5, 1, 2.5, 10).map((seconds) => seconds * TIME_SCALE),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        async (max, lease, ops) => {
          const key = `twin:cc:${++run}`;
          const params = concurrencyLimitParams({ max, lease });
          // Each id with the slots it asked for: a renewal or a release names both.
          const ids: { id: string; permits: number }[] = [];
          for (const { advance, kind, pick, volume: slots } of ops) {
            twins.nowMs += advance;
            const known = ids.length ? ids[pick % ids.length] : { id: 'none', permits: 1 };
            let request: ConcurrencyLimitRequest;
            if (kind === 'acquire') {
              ids.push({ id: `id${ids.length}`, permits: volumeOf(slots, max) });
              request = { op: 'acquire', ...ids[ids.length - 1] };
            } else if (kind === 'renew') request = { op: 'acquire', ...known };
            else if (kind === 'release') request = { op: 'release', ...known };
            else request = { op: 'release', id: 'never-acquired' };
            await both(concurrencyLimit, key, params, request);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('concurrency limit whose lease changes between decisions (state under older options)', async () => {
    const op = fc.record({
      advance: advanceMs,
      kind: fc.constantFrom('acquire', 'acquire', 'renew', 'release'),
      pick: fc.nat(),
      volume,
      long: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(op, { minLength: 1, maxLength: 40 }),
        async (max, ops) => {
          const key = `twin:cc-lease:${++run}`;
          // Two leases on one key, one 3600 times the other: the longer leases are cut.
          const short = concurrencyLimitParams({ max, lease: 1 * TIME_SCALE });
          const long = concurrencyLimitParams({ max, lease: 3600 * TIME_SCALE });
          const partition = {};
          const ids: { id: string; permits: number }[] = [];
          for (const { advance, kind, pick, volume: slots, long: isLong } of ops) {
            twins.nowMs += advance;
            const known = ids.length ? ids[pick % ids.length] : { id: 'none', permits: 1 };
            let request: ConcurrencyLimitRequest;
            if (kind === 'acquire') {
              ids.push({ id: `id${ids.length}`, permits: volumeOf(slots, max) });
              request = { op: 'acquire', ...ids[ids.length - 1] };
            } else if (kind === 'renew') request = { op: 'acquire', ...known };
            else request = { op: 'release', ...known };
            await both(concurrencyLimit, key, isLong ? long : short, request, partition);
          }
        },
      ),
      { numRuns: 50 },
    );
  });

  it('leaky bucket (GCRA)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(0.1, 1 / 60, 0.5, 1, 3).map((rate) => rate / TIME_SCALE),
        fc.array(fc.tuple(advanceMs, volume), { minLength: 1, maxLength: 40 }),
        async (capacity, rate, steps) => {
          const key = `twin:lb:${++run}`;
          const params = leakyBucketLimitParams({ capacity, rate });
          for (const [advance, pick] of steps) {
            twins.nowMs += advance;
            await both(leakyBucketLimit, key, params, { permits: volumeOf(pick, capacity) });
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
