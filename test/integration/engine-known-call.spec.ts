import Redis from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { RateLimiterFactory, RedisStore } from '../../src';
import { DecisionGroup } from '../../src/contracts/decision-group';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** A custom algorithm that takes its first argument off its argv, and answers the next. */
const shift: LimiterAlgorithm<{ first: string; second: string }, undefined, never> = {
  commandName: 'shiftFirst',
  lua: `table.remove(argv, 1)
return {1, tonumber(argv[1]), 0, 0, 0}`,
  paramsArgv: (params) => [params.first, params.second],
  step: () => ({ state: undefined, ttlMs: null, reply: [1, 0, 0, 0, 0] }),
  limit: () => 1,
};

/**
 * The engine keeps what it read of a call of one limit (engine.lua's known call), and a call
 * with the same packed entries runs it without reading them again: every decision stays
 * the one a call read from its arguments would make.
 */
describe('engine calls that repeat the call before', () => {
  let server: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  let factory: RateLimiterFactory;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
    store = new RedisStore({ client: server.client() });
    await store.check();
    factory = new RateLimiterFactory(store);
  });
  afterAll(async () => {
    await store.close();
    await server.stop();
  });
  beforeEach(() => admin.flushall());

  it('counts one limit decision after decision, one call each, then denies', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 6; i++) {
      const decision = await factory.countLimiter({ key: 'one', limit: 5, period: 60 }).decide();
      remaining.push(decision.allowed ? decision.remaining : -1);
    }
    expect(remaining).toEqual([4, 3, 2, 1, 0, -1]);
    expect(await admin.get('countLimit:one')).toBe('5');
  });

  it('keeps two limits apart when their calls alternate, and a batch apart from one call', async () => {
    const a = () => factory.countLimiter({ key: 'a', limit: 3, period: 60 }).decide();
    const b = () => factory.countLimiter({ key: 'b', limit: 10, period: 60 }).decide();
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push((await a()).remaining, (await b()).remaining);
    }
    // One turn: one call of three decisions (a full entry and two repeats), then one alone.
    const batch = await Promise.all([b(), b(), b()]);
    seen.push(...batch.map((d) => d.remaining), (await b()).remaining);
    seen.push(...(await Promise.all([b(), b(), b()])).map((d) => d.remaining));
    expect(seen).toEqual([2, 9, 1, 8, 0, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect((await a()).allowed).toBe(false);
  });

  it('snapshots and restores a group each time, the same group called again', async () => {
    // Without the denial cache, so that each call reaches Redis.
    const uncached = new RedisStore({ client: server.client(), cacheDenials: false });
    try {
      const params = countLimitParams({ limit: 5, period: 60 });
      await admin.set('full', '5', 'PX', 60_000);
      const together = () => {
        const group = new DecisionGroup(2);
        return Promise.all(
          ['open', 'full'].map((key) =>
            uncached.evaluate({ algorithm: countLimit, key, params, request: undefined, group }),
          ),
        );
      };
      for (let i = 0; i < 3; i++) {
        const [open, full] = await together();
        expect([open.allowed, full.allowed]).toEqual([true, false]);
      }
      // All or nothing: the allowed member's count is given back every time.
      expect(await admin.exists('open')).toBe(0);
      expect(await admin.get('full')).toBe('5');
    } finally {
      await uncached.close();
    }
  });

  it('gives an algorithm of the app its own copy of the argv on every call', async () => {
    const shifted = new RedisStore({ client: server.client() });
    try {
      const params = { first: '7', second: '9' };
      for (let i = 0; i < 3; i++) {
        const decision = await shifted.evaluate({
          algorithm: shift,
          key: 'shift',
          params,
          request: undefined,
        });
        expect(decision.remaining).toBe(9);
      }
    } finally {
      await shifted.close();
    }
  });
});
