import Redis from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { rateLimit } from '../../src/algorithms/rate-limit/rate-limit.definition';
import { rateLimitParams } from '../../src/algorithms/rate-limit/rate-limit.model';
import { RedisStore, StoreUnavailableError } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Script calls Redis has run (EVALSHA, or EVAL the first time on a connection). */
async function scriptCalls(admin: Redis): Promise<number> {
  const stats = await admin.info('commandstats');
  return [...stats.matchAll(/cmdstat_(evalsha|eval|fcall):calls=(\d+)/g)].reduce(
    (sum, match) => sum + Number(match[2]),
    0,
  );
}

const counter = countLimitParams({ limit: 3, period: 60 });
const count = (store: RedisStore, key: string) =>
  store
    .evaluate({ algorithm: countLimit, key, params: counter, request: undefined })
    .then((decision) => decision.allowed);

describe('the engine: decisions of one turn in one script call', () => {
  let redis: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  it('sends 100 decisions of one turn, on 25 keys, as one call, each decided in order', async () => {
    const store = new RedisStore({ client: redis.client() });
    await count(store, 'warm-up');
    const before = await scriptCalls(admin);
    const keys = Array.from({ length: 100 }, (_, i) => `one-call:${i % 25}`);
    const allowed = await Promise.all(keys.map((key) => count(store, key)));
    expect(await scriptCalls(admin)).toBe(before + 1);
    // Each key was asked 4 times in a row: allowed, allowed, allowed, denied.
    for (let k = 0; k < 25; k++) {
      expect([0, 1, 2, 3].map((round) => allowed[round * 25 + k])).toEqual([
        true,
        true,
        true,
        false,
      ]);
    }
  });

  it('caps a call at maxBatchSize decisions; 1 sends one call per decision', async () => {
    for (const [maxBatchSize, calls] of [
      [4, 3],
      [1, 10],
    ]) {
      const store = new RedisStore({ client: redis.client(), maxBatchSize });
      await count(store, 'warm-up');
      const before = await scriptCalls(admin);
      const keys = Array.from({ length: 10 }, (_, i) => `capped:${maxBatchSize}:${i}`);
      expect(await Promise.all(keys.map((key) => count(store, key)))).toEqual(Array(10).fill(true));
      expect(await scriptCalls(admin)).toBe(before + calls);
    }
    expect(() => new RedisStore({ client: redis.client(), maxBatchSize: 0 })).toThrow(
      'RedisStore: maxBatchSize must be an integer >= 1, got 0',
    );
  });

  it('fails only the entry whose key has the wrong type; the others of the call are decided', async () => {
    await admin.lpush('mixed:list', 'x');
    const store = new RedisStore({ client: redis.client() });
    const results = await Promise.allSettled(
      ['mixed:a', 'mixed:list', 'mixed:b'].map((key) => count(store, key)),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const reason = (results[1] as PromiseRejectedResult).reason;
    expect(reason).toBeInstanceOf(StoreUnavailableError);
    expect(String(reason.message)).toMatch(/WRONGTYPE/);
    expect(await admin.mget('mixed:a', 'mixed:b')).toEqual(['1', '1']);
  });

  it('runs each entry at its own injected time, in the order asked', async () => {
    let nowMs = 1_000_000;
    const store = new RedisStore({ client: redis.client(), now: () => nowMs, cacheDenials: false });
    const bucket = rateLimitParams({ rate: 1, burst: 1 });
    const take = () =>
      store
        .evaluate({
          algorithm: rateLimit,
          key: 'timed',
          params: bucket,
          request: { permits: 1, timeoutMicros: 0 },
        })
        .then((decision) => decision.allowed);
    const first = take();
    const second = take();
    nowMs += 1_000; // still the same turn: the third entry is a second later
    const third = take();
    expect(await Promise.all([first, second, third])).toEqual([true, false, true]);
  });

  it('skips, writing nothing, an entry whose deadline passed before Redis ran it', async () => {
    const store = new RedisStore({ client: redis.client() });
    await count(store, 'warm-up'); // a reply: the store now knows Redis's clock
    const late = store.evaluate({
      algorithm: countLimit,
      key: 'too-late',
      params: counter,
      request: undefined,
      deadlineMs: performance.now() - 5,
    });
    await expect(late).rejects.toThrow(
      'Redis skipped the decision: its caller had stopped waiting',
    );
    expect(await admin.exists('too-late')).toBe(0);
    const inTime = store.evaluate({
      algorithm: countLimit,
      key: 'in-time',
      params: counter,
      request: undefined,
      deadlineMs: performance.now() + 200,
    });
    expect((await inTime).allowed).toBe(true);
  });

  it('adds a custom algorithm to the engine, beside the built-in ones in one call', async () => {
    const doubler: LimiterAlgorithm<{ by: number }, void, number> = {
      commandName: 'doubler',
      lua: `local v = redis.call('INCRBY', key, tonumber(argv[1]))
return {1, v, 0, 0, 0}`,
      paramsArgv: (params) => [String(params.by)],
      step: (state, _now, params) => {
        const value = (state ?? 0) + params.by;
        return { state: value, ttlMs: null, reply: [1, value, 0, 0, 0] };
      },
      limit: () => 1000,
    };
    const store = new RedisStore({ client: redis.client() });
    const [custom, builtIn, again] = await Promise.all([
      store.evaluate({ algorithm: doubler, key: 'custom', params: { by: 2 }, request: undefined }),
      count(store, 'custom:neighbour'),
      store.evaluate({ algorithm: doubler, key: 'custom', params: { by: 2 }, request: undefined }),
    ]);
    expect([custom.remaining, builtIn, again.remaining]).toEqual([2, true, 4]);
  });

  it('passes arguments with spaces or empty ones to an algorithm unchanged', async () => {
    const echo: LimiterAlgorithm<{ words: string[] }, string, never> = {
      commandName: 'echo',
      lua: `return {1, #argv, string.len(argv[1]), string.len(argv[2]), string.len(argv[3])}`,
      paramsArgv: (params) => params.words,
      requestArgv: (request) => [request],
      step: () => ({ state: undefined, ttlMs: null, reply: [1, 3, 3, 0, 4] }),
      limit: () => 1,
    };
    const store = new RedisStore({ client: redis.client() });
    const decision = await store.evaluate({
      algorithm: echo,
      key: 'echo',
      params: { words: ['a b', ''] },
      request: 'four',
    });
    // allowed, 3 arguments, then their lengths: 'a b', '' and 'four'.
    expect([decision.remaining, decision.resetMs, decision.retryAfterMs, decision.waitMs]).toEqual([
      3, 0.003, 0, 0.004,
    ]);
  });
});
