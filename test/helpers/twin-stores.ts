import Redis from 'ioredis';
import { MemoryStore, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from './redis-server';

/** A RedisStore and a MemoryStore on one injected clock, for the twin property tests. */
export interface TwinStores {
  /** The shared clock, in ms; tests move it. */
  nowMs: number;
  redis: RedisStore;
  /** New for each test, so no state carries over between properties. */
  memory: MemoryStore;
  client: Redis;
}

/** Starts a redis-server for the file and registers the hooks that build the twins. */
export function useTwinStores(startMs: number): TwinStores {
  const twins = { nowMs: startMs } as TwinStores;
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
    twins.client = server.client();
    // The twins are compared decision by decision: no local denial cache in between.
    twins.redis = new RedisStore({
      client: twins.client,
      now: () => twins.nowMs,
      cacheDenials: false,
    });
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    twins.memory = new MemoryStore({ now: () => twins.nowMs });
  });
  return twins;
}
