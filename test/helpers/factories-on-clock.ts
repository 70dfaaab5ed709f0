import { MemoryStore, RateLimiterFactory, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from './redis-server';

/** A factory on each store, Redis and memory, both on one clock the tests move. */
export interface FactoriesOnClock {
  /** The stores' clock, in ms. */
  nowMs: number;
  /** [store name, a new factory on a new store], for `describe.each`. */
  stores: [string, () => RateLimiterFactory][];
}

/** Starts a redis-server for the file (stopped after it), with the clock at `startMs`. */
export function useFactoriesOnClock(startMs: number): FactoriesOnClock {
  let server: RedisServer;
  const clock: FactoriesOnClock = {
    nowMs: startMs,
    stores: [
      [
        'RedisStore',
        () =>
          new RateLimiterFactory(
            new RedisStore({ client: server.client(), now: () => clock.nowMs }),
          ),
      ],
      ['MemoryStore', () => new RateLimiterFactory(new MemoryStore({ now: () => clock.nowMs }))],
    ],
  };
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(() => server.stop());
  return clock;
}
