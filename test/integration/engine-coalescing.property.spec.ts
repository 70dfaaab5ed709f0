import fc from 'fast-check';
import Redis from 'ioredis';
import { approximateSlidingWindowLimit } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { approximateSlidingWindowLimitParams } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.model';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { leakyBucketLimit } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.definition';
import { leakyBucketLimitParams } from '../../src/algorithms/leaky-bucket-limit/leaky-bucket-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { Decision, LimiterStore, MemoryStore, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * Durations scaled up, as in engine-batching.property.spec.ts: Redis expires keys on its real
 * clock, the twin on the injected one, so no key may expire within a run. The token bucket's
 * `expire` too: a bucket whose new state holds fewer permits than a full one (initialPermits)
 * tells an expired key from a kept one.
 */
const TIME_SCALE = 100;
const S = 1_000_000 * TIME_SCALE;

interface Op {
  advanceMs: number;
  key: number;
  /** The sliding log's id: the request's own, or (rarely) the one before it again. */
  repeatsId: boolean;
  permits: number;
  /** The token bucket's timeout: none, some, as long as it takes. */
  timeout: number;
}

type Kind = {
  name: string;
  algorithm: LimiterAlgorithm<any, any, any>;
  params: object;
  request: (op: Op, i: number) => unknown;
};

const permits = (op: Op) => ({ permits: op.permits });
const BASE: Kind[] = [
  {
    name: 'tb',
    algorithm: rateLimit,
    params: rateLimitParams({
      rate: 2 / TIME_SCALE,
      burst: 2 * TIME_SCALE,
      expire: 60 * TIME_SCALE,
    }),
    request: (op) => ({ permits: op.permits, timeoutMicros: [0, 0.3 * S, -1][op.timeout] }),
  },
  {
    name: 'fw',
    algorithm: countLimit,
    params: countLimitParams({ limit: 3, period: 600 * TIME_SCALE }),
    request: permits,
  },
  {
    name: 'lb',
    algorithm: leakyBucketLimit,
    params: leakyBucketLimitParams({ capacity: 2, rate: 4 / TIME_SCALE }),
    request: permits,
  },
  {
    name: 'sw',
    algorithm: slidingWindowLimit,
    params: slidingWindowLimitParams({ limit: 4, window: TIME_SCALE }),
    request: (op, i) => ({ id: `r${op.repeatsId ? i - 1 : i}`, permits: op.permits }),
  },
  {
    name: 'asw',
    algorithm: approximateSlidingWindowLimit,
    params: approximateSlidingWindowLimitParams(
      { limit: 4, window: TIME_SCALE, approximate: true },
      'test',
    ),
    request: permits,
  },
];

/** Each algorithm without a block, with one, and with escalating blocks. */
const KINDS: Kind[] = BASE.flatMap((kind) => [
  kind,
  { ...kind, name: `${kind.name}+block`, params: { ...kind.params, blockMicros: 2 * S } },
  {
    ...kind,
    name: `${kind.name}+steps`,
    params: { ...kind.params, blockMicros: S, blockStepsMicros: [S, 2 * S] },
  },
]);

/** A fixed window's reset and retry are Redis TTLs on its real clock: left out. */
function comparable(kind: Kind, decision: Decision): unknown {
  return kind.name.startsWith('fw')
    ? { ...decision, resetMs: 'TTL', retryAfterMs: 'TTL' }
    : decision;
}

/** Reads of the keys: GET of a string state, ZRANGE of a log. */
async function gets(client: Redis): Promise<number> {
  const stats = await client.info('commandstats');
  const calls = (name: string) =>
    Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  // The counter reads its count with the INCRBY that takes it (count-limit.incr.lua).
  return calls('get') + calls('zrange') + calls('incrby');
}

describe('coalesced decisions equal the same decisions one by one and the memory twin', () => {
  let coalescing: RedisServer;
  let plain: RedisServer;
  let nowMs = 1_700_000_000_000;
  let batched: RedisStore;
  let single: RedisStore;
  let run = 0;

  beforeAll(async () => {
    // Two servers, so that each store's reads are counted apart.
    [coalescing, plain] = await Promise.all([startRedisServer(), startRedisServer()]);
    const options = { now: () => nowMs, cacheDenials: false };
    batched = new RedisStore({ client: coalescing.client(), ...options });
    single = new RedisStore({ client: plain.client(), ...options, maxBatchSize: 1 });
  });
  afterAll(() => Promise.all([coalescing.stop(), plain.stop()]));

  const op = fc.record({
    // Mostly none: entries of one time on one key are what is coalesced.
    advanceMs: fc.oneof(
      { arbitrary: fc.constant(0), weight: 12 },
      { arbitrary: fc.constantFrom(125, 250, 500).map((ms) => ms * TIME_SCALE), weight: 2 },
      { arbitrary: fc.integer({ min: 1, max: 700 * TIME_SCALE }), weight: 1 },
    ),
    key: fc.integer({ min: 0, max: 1 }),
    // Mostly 1; else 0 (a peek) to 6, beyond every limit here (a request that can never pass).
    permits: fc.oneof(
      { arbitrary: fc.constant(1), weight: 3 },
      { arbitrary: fc.integer({ min: 0, max: 6 }), weight: 2 },
    ),
    timeout: fc.integer({ min: 0, max: 2 }),
    repeatsId: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  });

  it.each(KINDS.map((kind) => [kind.name, kind] as const))(
    '%s, for random schedules on two keys',
    async (_name, kind) => {
      const seen = { allowed: 0, denied: 0, decisions: 0 };
      const readsBefore = [await gets(coalescing.client()), await gets(plain.client())];
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 10, maxLength: 60 }), async (ops) => {
          run++;
          const startMs = nowMs;
          const decide = (store: LimiterStore, o: Op, i: number) =>
            store.evaluate({
              algorithm: kind.algorithm,
              key: `co:${run}:${o.key}`,
              params: kind.params,
              request: kind.request(o, i),
            });

          // All in one turn: the clock moves between some of them.
          const pending: Promise<Decision>[] = [];
          ops.forEach((o, i) => {
            nowMs += o.advanceMs;
            pending.push(decide(batched, o, i));
          });
          const together = await Promise.all(pending);

          nowMs = startMs;
          const oneByOne: Decision[] = [];
          const inMemory: Decision[] = [];
          const memory = new MemoryStore({ now: () => nowMs });
          for (const [i, o] of ops.entries()) {
            nowMs += o.advanceMs;
            oneByOne.push(await decide(single, o, i));
            inMemory.push(await decide(memory, o, i));
          }
          const shown = (decisions: Decision[]) => decisions.map((d) => comparable(kind, d));
          expect(shown(together)).toEqual(shown(oneByOne));
          // A repeated id breaks the log's contract (ids are unique): the memory twin may
          // tell it apart; Redis coalesced or not must not.
          if (!ops.some((o) => o.repeatsId)) expect(shown(inMemory)).toEqual(shown(oneByOne));
          for (const d of together) seen[d.allowed ? 'allowed' : 'denied']++;
          seen.decisions += ops.length;
          nowMs += 10_000 * TIME_SCALE;
        }),
        { numRuns: 25 },
      );
      expect(seen.allowed).toBeGreaterThan(50);
      expect(seen.denied).toBeGreaterThan(50);
      // Coalesced: fewer reads of the keys than one by one; escalating blocks run one by one.
      const reads = (await gets(coalescing.client())) - readsBefore[0];
      const readsOneByOne = (await gets(plain.client())) - readsBefore[1];
      expect(readsOneByOne).toBeGreaterThanOrEqual(seen.decisions);
      if (kind.name.endsWith('+steps')) expect(reads).toBeGreaterThanOrEqual(seen.decisions);
      // The approximate window reads again for each denial of a new cost (its acquire answers
      // it on the counts as they stand): fewer reads saved there.
      else expect(reads).toBeLessThan((kind.name.startsWith('asw') ? 0.9 : 0.8) * seen.decisions);
    },
  );

  /** The buckets and blocks under two sets of options on one key: older state cut alike. */
  /**
   * The token bucket's requests on key 0, and some on key 1, are a decorator's (their limit's
   * timeout). Key 0's keep one timeout but now and then (a corrected `timeout`), so that most
   * run together: the coalesced form takes a decorator's requests of one timeout only.
   */
  const decorated: Kind = {
    ...BASE[0],
    request: (op, i) => ({
      ...(BASE[0].request(op, i) as object),
      ...(op.key === 0 && { timeoutMicros: op.repeatsId ? 0.3 * S : 0 }),
      byDecorator: op.key === 0 || op.permits % 2 === 0,
    }),
  };
  const pairs: [string, Kind, object][] = [
    [
      'tb',
      decorated,
      rateLimitParams({
        rate: 0.5 / TIME_SCALE,
        burst: 3 * TIME_SCALE,
        initialPermits: 1,
        expire: 60 * TIME_SCALE,
      }),
    ],
    ['lb', BASE[2], leakyBucketLimitParams({ capacity: 1, rate: 1 / TIME_SCALE })],
  ];
  const OLDER = pairs.flatMap(([name, kind, other]): [string, Kind, object][] => [
    [name, kind, other],
    [
      `${name}+block`,
      { ...kind, params: { ...kind.params, blockMicros: 3 * S } },
      { ...other, blockMicros: S },
    ],
  ]);

  /**
   * A bucket written under the first options and read by an allowed peek under the others
   * (whose new bucket holds less than a full one), then peeked again: a key that the twin's
   * clock had expired and Redis's had not told them apart.
   */
  const peek = { key: 0, permits: 0, timeout: 0, repeatsId: false };
  const expiredOnTheTwin = [
    { at: { ...peek, advanceMs: 0, permits: 1 }, other: false },
    { at: { ...peek, advanceMs: 1000 * TIME_SCALE }, other: true },
    { at: { ...peek, advanceMs: 125 * TIME_SCALE }, other: true },
  ];

  it.each(OLDER)('%s, its options changing between runs on one key', async (_name, kind, other) => {
    const switching = fc.record({ at: op, other: fc.boolean() });
    await fc.assert(
      fc.asyncProperty(fc.array(switching, { minLength: 10, maxLength: 60 }), async (ops) => {
        run++;
        const startMs = nowMs;
        const partition = {};
        const decide = (store: LimiterStore, o: Op, i: number, isOther: boolean) =>
          store.evaluate({
            algorithm: kind.algorithm,
            key: `co:older:${run}:${o.key}`,
            params: isOther ? other : kind.params,
            request: kind.request(o, i),
            partition,
          });
        const pending: Promise<Decision>[] = [];
        ops.forEach(({ at, other: isOther }, i) => {
          nowMs += at.advanceMs;
          pending.push(decide(batched, at, i, isOther));
        });
        const together = await Promise.all(pending);
        nowMs = startMs;
        const oneByOne: Decision[] = [];
        const inMemory: Decision[] = [];
        const memory = new MemoryStore({ now: () => nowMs });
        for (const [i, { at, other: isOther }] of ops.entries()) {
          nowMs += at.advanceMs;
          oneByOne.push(await decide(single, at, i, isOther));
          inMemory.push(await decide(memory, at, i, isOther));
        }
        expect(together).toEqual(oneByOne);
        expect(inMemory).toEqual(oneByOne);
        nowMs += 10_000 * TIME_SCALE;
      }),
      { numRuns: 25, examples: [[expiredOnTheTwin]] },
    );
  });
});
