import { Cluster } from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';

/**
 * A quota's idempotency keys live in its state's hash slot: on a Cluster, retried charges of
 * keys spread over the masters (or all in one slot by a hash tag in the key prefix) all
 * succeed, once each.
 */
describe('calendar quota on a 3-master Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let client: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster({ replicas: 0 });
    client = cluster.client();
  }, 60_000);
  afterAll(() => cluster?.stop());

  it.each([
    ['no hash tag', ''],
    ['a hash tag in the key prefix', '{tenants}:'],
  ])(
    'charges each idempotency key once, with %s',
    async (_case, keyPrefix) => {
      const store = new RedisStore({ client });
      const factory = new RateLimiterFactory(store, { keyPrefix });
      const tenants = Array.from({ length: 24 }, (_, i) => `tenant-${i}`);
      const quota = (key: string) => factory.quota({ key, limit: 1000, cycle: 'month' });
      // Every tenant charges orders 0..4, each sent three times at once.
      const calls = tenants.flatMap((tenant) =>
        Array.from({ length: 15 }, (_, i) =>
          quota(tenant).consume(1, { idempotencyKey: `order-${i % 5}` }),
        ),
      );
      const answers = await Promise.all(calls);
      expect(answers.every((answer) => answer.allowed)).toBe(true);
      expect(answers.filter((answer) => answer.repeated)).toHaveLength(24 * 10);
      const usage = await Promise.all(tenants.map((tenant) => quota(tenant).usage()));
      expect(new Set(usage.map(({ used }) => used))).toEqual(new Set([5]));
      const slots = new Set(
        await Promise.all(
          tenants.map((tenant) => client.cluster('KEYSLOT', `${keyPrefix}quota:${tenant}`)),
        ),
      );
      // Spread over the slots (and so the masters), or all in the prefix's one.
      if (keyPrefix) expect(slots.size).toBe(1);
      else expect(slots.size).toBeGreaterThan(20);
      await store.close();
    },
    60_000,
  );
});
