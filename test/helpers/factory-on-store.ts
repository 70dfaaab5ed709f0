import Redis from 'ioredis';
import { LimiterStore, MemoryStore, RateLimiterFactory, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from './redis-server';

/** A factory on a real redis-server or on a MemoryStore, for a describe block; filled in by `beforeAll`. */
export interface FactoryOnStore {
  store: LimiterStore;
  factory: RateLimiterFactory;
  /** A client of the test's own on the server (absent for the memory store). */
  client?: Redis;
}

/** Registers the hooks that start the store (and its redis-server) and stop both. */
export function useFactoryOnStore(storeName: 'redis' | 'memory'): FactoryOnStore {
  const env = {} as FactoryOnStore;
  let server: RedisServer | undefined;
  beforeAll(async () => {
    if (storeName === 'redis') {
      server = await startRedisServer();
      env.client = server.client();
      env.store = new RedisStore({ client: env.client });
    } else {
      env.store = new MemoryStore();
    }
    env.factory = new RateLimiterFactory(env.store);
  });
  afterAll(async () => {
    await env.store?.close();
    await server?.stop();
  });
  return env;
}
