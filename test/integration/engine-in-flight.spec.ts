import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { RedisStore } from '../../src';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * "Batches grow with load": while engine calls are in flight, new decisions wait
 * and leave together when one returns; one that waited past its deadline is never sent.
 */
const params = countLimitParams({ limit: 1e9, period: 60 });
const afterSend = () => new Promise((resolve) => setImmediate(resolve));

describe('engine calls in flight', () => {
  let server: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
  });
  afterAll(() => server.stop());

  it('makes batches grow with the decisions in flight, each decided once', async () => {
    const store = new RedisStore({ client: server.client() });
    const sizes: number[] = [];
    store.observeEngineCalls((_durationMs, decisions) => sizes.push(decisions));
    const total = 4000;
    let started = 0;
    let allowed = 0;
    // 200 callers, each asking again as soon as it is answered (the bench's load).
    const caller = async (): Promise<void> => {
      while (started < total) {
        started++;
        const decision = await store.evaluate({
          algorithm: countLimit,
          key: `grow:${started % 500}`,
          params,
          request: undefined,
        });
        if (decision.allowed) allowed++;
      }
    };
    await Promise.all(Array.from({ length: 200 }, caller));
    expect(allowed).toBe(total);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(total);
    // Every decision but the first few waits for a call in flight: about 100 a call with
    // 2 in flight, where one call per group of replies made them about 20.
    expect(total / sizes.length).toBeGreaterThan(60);
    await store.close();
  });

  it('holds the decisions of later turns while two calls are in flight, then sends them as one', async () => {
    // The first decision keeps Redis busy for 50 ms, as a large batch on a loaded Redis would.
    const slow: LimiterAlgorithm<object, void, never> = {
      commandName: 'slow',
      lua: `local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= 50000
return {1, 0, 0, 0, 0}`,
      paramsArgv: () => [],
      step: () => ({ state: undefined, ttlMs: null, reply: [1, 0, 0, 0, 0] }),
      limit: () => 1,
    };
    const store = new RedisStore({ client: server.client() });
    await store.evaluate({ algorithm: slow, key: 'held:warm-up', params: {}, request: undefined });
    const sizes: number[] = [];
    store.observeEngineCalls((_durationMs, decisions) => sizes.push(decisions));
    const pending = [
      store.evaluate({ algorithm: slow, key: 'held:slow', params: {}, request: undefined }),
    ];
    // Five decisions, each in a turn of its own, while the slow call runs.
    for (let turn = 0; turn < 5; turn++) {
      await afterSend();
      pending.push(
        store.evaluate({ algorithm: countLimit, key: `held:${turn}`, params, request: undefined }),
      );
    }
    const decisions = await Promise.all(pending);
    expect(decisions.map((decision) => decision.allowed)).toEqual(Array(6).fill(true));
    // The slow call, the second call in flight, then the four that waited, together.
    expect(sizes).toEqual([1, 1, 4]);
    await store.close();
  });

  it('never sends a decision that waited for a frozen call past its deadline', async () => {
    const store = new RedisStore({ client: server.client() });
    const logger = new Logger('test');
    logger.warn = () => undefined;
    logger.error = () => undefined;
    const timeoutMs = 200;
    const policy = new FailurePolicyStore(store, 'allow', timeoutMs, logger);
    const decide = (key: string) =>
      policy.decide({ algorithm: countLimit, key, params, request: undefined });
    expect((await decide('frozen:warm-up'))?.allowed).toBe(true);
    server.freeze();
    try {
      const startedAt = performance.now();
      // Two calls in flight, then a decision that waits for them.
      const first = decide('frozen:first');
      await afterSend();
      const second = decide('frozen:second');
      await afterSend();
      const waiting = decide('frozen:waiting');
      await afterSend();
      expect(await Promise.all([first, second, waiting])).toEqual([null, null, null]);
      // No one waited much longer than storeTimeout, the queued one included.
      expect(performance.now() - startedAt).toBeLessThan(timeoutMs * 4);
    } finally {
      server.thaw();
    }
    // Once Redis answers again, the frozen calls return (their decisions skipped in Redis),
    // and the decision that waited for them is dropped, not sent with a fresh deadline.
    const deadline = Date.now() + 5000;
    while (!(await decide('frozen:after'))?.allowed && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await admin.exists('frozen:first', 'frozen:second', 'frozen:waiting')).toBe(0);
    expect(await admin.exists('frozen:after')).toBe(1);
    await store.close();
  });
});
