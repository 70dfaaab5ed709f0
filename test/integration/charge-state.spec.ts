import Redis from 'ioredis';
import {
  approximateSlidingWindowLimit,
  approximateSlidingWindowLimitDefinition,
} from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.definition';
import { approximateSlidingWindowLimitParams } from '../../src/algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.model';
import {
  countLimit,
  countLimitDefinition,
} from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import {
  slidingWindowLimit,
  slidingWindowLimitDefinition,
} from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { Decision, LimiterAlgorithm, MemoryStore, RedisStore } from '../../src';
import { RedisServer, startRedisServer, WITHOUT_FUNCTIONS } from '../helpers/redis-server';

type AnyAlgorithm = LimiterAlgorithm<any, any, any>;

interface MemoryEntry {
  state: { inner: any };
  expiresAtMicros: number;
}

/**
 * A charge's write on Redis, read back as its value (or log) and TTL, against the memory
 * store's entry after the same steps. Decisions alone would not tell them apart: a charge
 * answers nothing, and a state rolled or re-timed decides alike until its TTL runs out.
 * Redis's TTLs run on its real clock, so the clock stays still between a write and its read
 * (a TTL is compared to the millisecond the real time between them allows).
 */
// Run as FCALL of the library and as a script (EVALSHA), whose Lua starts afresh each call.
describe.each([
  ['FCALL', [] as string[]],
  ['EVALSHA', WITHOUT_FUNCTIONS],
])('a charge leaves the same state and TTL on Redis (%s) as in memory', (_path, args) => {
  let server: RedisServer;
  let admin: Redis;
  let redis: RedisStore;
  let memory: MemoryStore;
  let nowMs = 1_700_000_000_000;
  let run = 0;
  const key = (name: string) => `charge:${++run}:${name}`;

  beforeAll(async () => {
    server = await startRedisServer(args);
    admin = server.client();
    redis = new RedisStore({ client: server.client(), now: () => nowMs, cacheDenials: false });
    await redis.check();
  });
  afterAll(async () => {
    await redis.close();
    await server.stop();
  });
  beforeEach(() => {
    nowMs += 1_000_000_000;
    memory = new MemoryStore({ now: () => nowMs });
  });

  /** The decision on both; a counter's times are Redis TTLs on its real clock: left out. */
  async function both(algorithm: AnyAlgorithm, on: string, params: object, request: unknown) {
    const [fromRedis, fromMemory] = await Promise.all([
      redis.evaluate({ algorithm, key: on, params, request }),
      memory.evaluate({ algorithm, key: on, params, request }),
    ]);
    const shown = (decision: Decision) =>
      'periodMs' in params ? { ...decision, resetMs: 'TTL', retryAfterMs: 'TTL' } : decision;
    expect(shown(fromMemory)).toEqual(shown(fromRedis));
    return fromRedis;
  }

  function memoryEntry(algorithm: AnyAlgorithm, params: object, on: string) {
    const partition = (memory as any).partitionOf(algorithm, params);
    return partition.get(on) as MemoryEntry | undefined;
  }

  /** Puts a state in memory as a restore would, with `ttlMs` to live. */
  function putInMemory(
    algorithm: AnyAlgorithm,
    params: object,
    on: string,
    inner: object,
    ttlMs: number,
  ) {
    const nowMicros = nowMs * 1000;
    const partition = (memory as any).partitionOf(algorithm, params);
    partition.set(
      on,
      { state: { inner }, expiresAtMicros: nowMicros + ttlMs * 1000, deniesUntilMicros: 0 },
      nowMicros,
    );
  }

  /** PTTL read a few ms after the write, rounded up to the TTL it was written with. */
  async function redisTtl(on: string, expectedMs: number): Promise<number> {
    const ttl = await admin.pttl(on);
    return ttl > 0 && ttl <= expectedMs && expectedMs - ttl < 250 ? expectedMs : ttl;
  }

  describe('the counter (its acquire with the limit lifted)', () => {
    const params = countLimitParams({ limit: 5, period: 60 });
    const charge = countLimitDefinition.ops.charge!;

    async function state(on: string, ttlMs: number) {
      const entry = memoryEntry(countLimit, params, on);
      const inMemory = entry && {
        value: String(entry.state.inner.count),
        ttlMs: (entry.expiresAtMicros - nowMs * 1000) / 1000,
      };
      const value = await admin.get(on);
      const onRedis = value === null ? undefined : { value, ttlMs: await redisTtl(on, ttlMs) };
      return { onRedis, inMemory };
    }

    /** A key that counted 2, its window with 40 s left, on both stores. */
    async function countingTwo(name: string) {
      const on = key(name);
      await both(countLimit, on, params, { permits: 2 });
      await admin.pexpire(on, 40_000);
      const windowEndMicros = nowMs * 1000 + 40_000_000;
      putInMemory(countLimit, params, on, { count: 2, windowEndMicros }, 40_000);
      return on;
    }

    it('a charge on no key starts a window of its permits', async () => {
      const on = key('new');
      await both(charge, on, params, { permits: 3 });
      const { onRedis, inMemory } = await state(on, 60_000);
      expect(onRedis).toEqual({ value: '3', ttlMs: 60_000 });
      expect(inMemory).toEqual(onRedis);
      expect(await both(countLimit, on, params, { permits: 1 })).toMatchObject({ remaining: 1 });
    });

    it('a charge past the limit is debt: the count above it, the window kept, then denials', async () => {
      const on = await countingTwo('debt');
      await both(charge, on, params, { permits: 6 });
      const { onRedis, inMemory } = await state(on, 40_000);
      expect(onRedis).toEqual({ value: '8', ttlMs: 40_000 });
      expect(inMemory).toEqual(onRedis);
      expect(await both(countLimit, on, params, { permits: 1 })).toMatchObject({
        allowed: false,
        remaining: 0,
      });
    });

    it('a charge of 0 on a counting key changes neither its count nor its TTL', async () => {
      const on = await countingTwo('zero-on-count');
      await both(charge, on, params, { permits: 0 });
      const { onRedis, inMemory } = await state(on, 40_000);
      expect(onRedis).toEqual({ value: '2', ttlMs: 40_000 });
      expect(inMemory).toEqual(onRedis);
    });

    it('a charge of 0 on no key writes nothing, as an acquire of 0 writes nothing', async () => {
      const on = key('zero-on-none');
      await both(charge, on, params, { permits: 0 });
      const { onRedis, inMemory } = await state(on, 60_000);
      expect(onRedis).toBeUndefined();
      expect(await admin.exists(on)).toBe(0);
      expect(inMemory).toBeUndefined();
    });

    it('a charge on a count of "0" starts a new period, as an acquire there does', async () => {
      const on = key('on-zero');
      await admin.set(on, '0', 'PX', 30_000);
      putInMemory(
        countLimit,
        params,
        on,
        { count: 0, windowEndMicros: nowMs * 1000 + 30_000_000 },
        30_000,
      );
      await both(charge, on, params, { permits: 3 });
      const onRedis = { value: await admin.get(on), ttlMs: await redisTtl(on, 60_000) };
      expect(onRedis).toEqual({ value: '3', ttlMs: 60_000 });
      const { inMemory } = await state(on, 60_000);
      expect(inMemory).toEqual({ value: '3', ttlMs: 60_000 });
    });
  });

  describe('the approximate sliding window (its acquire with the limit lifted)', () => {
    const windowMicros = 10_000_000;
    const params = approximateSlidingWindowLimitParams(
      { limit: 5, window: 10, approximate: true },
      'test',
    );
    const charge = approximateSlidingWindowLimitDefinition.ops.charge!;

    async function state(on: string, ttlMs: number) {
      const entry = memoryEntry(approximateSlidingWindowLimit, params, on);
      const inMemory = entry && {
        value: `${entry.state.inner.index} ${entry.state.inner.curr} ${entry.state.inner.prev}`,
        ttlMs: Math.ceil((entry.expiresAtMicros - nowMs * 1000) / 1000),
      };
      const value = await admin.get(on);
      const onRedis = value === null ? undefined : { value, ttlMs: await redisTtl(on, ttlMs) };
      return { onRedis, inMemory };
    }

    /** Now at `intoMs` into its window; that window's index and the ms to the next one's end. */
    function placeClock(intoMs: number) {
      const index = Math.floor((nowMs * 1000) / windowMicros) + 1;
      nowMs = (index * windowMicros) / 1000 + intoMs;
      return { index, ttlMs: 2 * 10_000 - intoMs };
    }

    it('a charge on no key counts its permits in this window, to the next one’s end', async () => {
      const on = key('new');
      const { index, ttlMs } = placeClock(2_500);
      await both(charge, on, params, { permits: 4 });
      const { onRedis, inMemory } = await state(on, ttlMs);
      expect(onRedis).toEqual({ value: `${index} 4 0`, ttlMs: 17_500 });
      expect(inMemory).toEqual(onRedis);
    });

    it('a charge past the limit, a window on: the count rolled to the previous one, as debt', async () => {
      const on = key('debt');
      const { index } = placeClock(1_000);
      await both(approximateSlidingWindowLimit, on, params, { permits: 3 });
      nowMs += 10_000 + 500;
      await both(charge, on, params, { permits: 6 });
      const { onRedis, inMemory } = await state(on, 18_500);
      expect(onRedis).toEqual({ value: `${index + 1} 6 3`, ttlMs: 18_500 });
      expect(inMemory).toEqual(onRedis);
      expect(await both(approximateSlidingWindowLimit, on, params, { permits: 1 })).toMatchObject({
        allowed: false,
        remaining: 0,
      });
    });

    it('a charge on a state whose counts are "0" adds to them', async () => {
      const on = key('on-zero');
      const { index } = placeClock(4_000);
      await admin.set(on, `${index} 0 0`, 'PX', 16_000);
      putInMemory(approximateSlidingWindowLimit, params, on, { index, curr: 0, prev: 0 }, 16_000);
      await both(charge, on, params, { permits: 2 });
      const { onRedis, inMemory } = await state(on, 16_000);
      expect(onRedis).toEqual({ value: `${index} 2 0`, ttlMs: 16_000 });
      expect(inMemory).toEqual(onRedis);
    });

    it('a charge of 0 in the window of the last write leaves the state as it was', async () => {
      const on = key('zero-same-window');
      const { index } = placeClock(3_000);
      await both(approximateSlidingWindowLimit, on, params, { permits: 2 });
      await both(charge, on, params, { permits: 0 });
      const { onRedis, inMemory } = await state(on, 17_000);
      expect(onRedis).toEqual({ value: `${index} 2 0`, ttlMs: 17_000 });
      expect(inMemory).toEqual(onRedis);
    });

    it('a charge of 0 on no key writes nothing, as an acquire of 0 writes nothing', async () => {
      const on = key('zero-on-none');
      placeClock(2_000);
      await both(charge, on, params, { permits: 0 });
      const { onRedis, inMemory } = await state(on, 18_000);
      expect(onRedis).toBeUndefined();
      expect(inMemory).toBeUndefined();
    });

    it('a charge of 0 a window on leaves the state as written', async () => {
      const on = key('zero-rolled');
      const { index } = placeClock(1_000);
      await both(approximateSlidingWindowLimit, on, params, { permits: 2 });
      nowMs += 10_000;
      await both(charge, on, params, { permits: 0 });
      const onRedis = { value: await admin.get(on), ttlMs: await redisTtl(on, 19_000) };
      expect(onRedis).toEqual({ value: `${index} 2 0`, ttlMs: 19_000 });
      // The same expiry as written: the memory store's clock moved on 10 s, Redis's did not.
      const { inMemory } = await state(on, 19_000);
      expect(inMemory).toEqual({ value: `${index} 2 0`, ttlMs: 9_000 });
      expect(await both(approximateSlidingWindowLimit, on, params, { permits: 0 })).toMatchObject({
        allowed: true,
      });
    });
  });

  describe('the sliding log (its own charge: a member per id, reweighed)', () => {
    const params = slidingWindowLimitParams({ limit: 3, window: 10 });
    const charge = slidingWindowLimitDefinition.ops.charge!;

    /** The log as ZRANGE WITHSCORES reads it, and its TTL. */
    async function state(on: string, ttlMs: number) {
      const entry = memoryEntry(slidingWindowLimit, params, on);
      const inner = entry?.state.inner as { timesMicros: number[]; ids: string[] } | undefined;
      const members = inner?.ids
        .map((id, i) => [id, String(inner.timesMicros[i])] as const)
        .sort(([a, at], [b, bt]) => Number(at) - Number(bt) || (a < b ? -1 : a > b ? 1 : 0))
        .flat();
      const inMemory = entry && {
        members,
        ttlMs: Math.ceil((entry.expiresAtMicros - nowMs * 1000) / 1000),
      };
      const log = await admin.zrange(on, '0', '-1', 'WITHSCORES');
      const onRedis =
        log.length === 0 ? undefined : { members: log, ttlMs: await redisTtl(on, ttlMs) };
      return { onRedis, inMemory };
    }

    const at = (ms: number) => String(ms * 1000);

    it("a request's charges: one member beside its own, moved to the last and weighing both", async () => {
      const on = key('own');
      const t0 = nowMs;
      await both(slidingWindowLimit, on, params, { id: 'r1', permits: 1 });
      nowMs += 1_000;
      await both(charge, on, params, { id: 'r1', permits: 2 });
      let { onRedis, inMemory } = await state(on, 10_000);
      expect(onRedis).toEqual({
        members: ['r1', at(t0), 'r1+\u00002', at(t0 + 1_000)],
        ttlMs: 10_000,
      });
      expect(inMemory).toEqual(onRedis);
      nowMs += 2_000;
      await both(charge, on, params, { id: 'r1', permits: 3 });
      ({ onRedis, inMemory } = await state(on, 10_000));
      expect(onRedis).toEqual({
        members: ['r1', at(t0), 'r1+\u00005', at(t0 + 3_000)],
        ttlMs: 10_000,
      });
      expect(inMemory).toEqual(onRedis);
      expect(await both(slidingWindowLimit, on, params, { id: 'r2', permits: 1 })).toMatchObject({
        allowed: false,
        remaining: 0,
      });
    });

    it('a charge without an id is named by its time', async () => {
      const on = key('anonymous');
      await both(charge, on, params, { permits: 4 });
      const { onRedis, inMemory } = await state(on, 10_000);
      expect(onRedis).toEqual({
        members: [`charge:${at(nowMs)}\u00004`, at(nowMs)],
        ttlMs: 10_000,
      });
      expect(inMemory).toEqual(onRedis);
    });

    it('a charge of 0 logs a member of no weight, which a later charge of its id reweighs', async () => {
      const on = key('zero');
      const t0 = nowMs;
      await both(slidingWindowLimit, on, params, { id: 'r1', permits: 1 });
      await both(charge, on, params, { id: 'r1', permits: 0 });
      let { onRedis, inMemory } = await state(on, 10_000);
      expect(onRedis).toEqual({ members: ['r1', at(t0), 'r1+\u00000', at(t0)], ttlMs: 10_000 });
      expect(inMemory).toEqual(onRedis);
      nowMs += 500;
      await both(charge, on, params, { id: 'r1', permits: 2 });
      ({ onRedis, inMemory } = await state(on, 10_000));
      expect(onRedis).toEqual({
        members: ['r1', at(t0), 'r1+\u00002', at(t0 + 500)],
        ttlMs: 10_000,
      });
      expect(inMemory).toEqual(onRedis);
    });

    it('a charge drops the members that left the window first', async () => {
      const on = key('aged');
      const t0 = nowMs;
      await both(slidingWindowLimit, on, params, { id: 'old', permits: 2 });
      nowMs += 10_000;
      await both(charge, on, params, { id: 'old', permits: 1 });
      const { onRedis, inMemory } = await state(on, 10_000);
      expect(onRedis).toEqual({ members: ['old+', at(t0 + 10_000)], ttlMs: 10_000 });
      expect(inMemory).toEqual(onRedis);
    });
  });
});
