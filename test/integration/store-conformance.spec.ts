import type Redis from 'ioredis';
import { RedisStore } from '../../src';
import { limiterStoreConformance } from '../../src/testing';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * The Redis store keeps the store contract that nestjs-limiter/testing checks, on a real
 * redis-server: one store per check on one client, Redis's own clock (real time), and the
 * same checks the memory store passes (test/unit/testing/store-conformance.spec.ts).
 */
describe('limiterStoreConformance: RedisStore on a real redis-server', () => {
  let redis: RedisServer;
  let client: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    client = redis.client();
  });
  afterAll(() => redis.stop());

  for (const check of limiterStoreConformance({ store: () => new RedisStore({ client }) })) {
    it(check.name, () => check.run());
  }
});
