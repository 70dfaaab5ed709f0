import Redis from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { RedisStore } from '../../src';
import { DecisionGroup } from '../../src/contracts/decision-group';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * A group (one request's limits, all or nothing) snapshots its keys with DUMP. An ACL user
 * without DUMP must not make the engine script fail for the whole batch: the group's
 * members answer the error (the store-error policy applies), nothing of them is counted,
 * and the other decisions of the batch are made.
 */
describe('engine groups under an ACL user without DUMP', () => {
  let server: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
    await admin.call('ACL', 'SETUSER', 'no-dump', 'on', '>secret', '~*', '+@all', '-dump');
  });
  afterAll(() => server.stop());

  it('fails only the group, writing nothing, and decides the rest of the batch', async () => {
    const client = new Redis(server.port, '127.0.0.1', { username: 'no-dump', password: 'secret' });
    try {
      const store = new RedisStore({ client });
      const params = countLimitParams({ limit: 5, period: 60 });
      const group = new DecisionGroup(2);
      const results = await Promise.allSettled([
        store.evaluate({
          algorithm: countLimit,
          key: 'g:a',
          params,
          request: undefined,
          deadlineMs: Infinity,
          group,
        }),
        store.evaluate({
          algorithm: countLimit,
          key: 'g:b',
          params,
          request: undefined,
          deadlineMs: Infinity,
          group,
        }),
        store.evaluate({ algorithm: countLimit, key: 'alone', params, request: undefined }),
      ]);
      expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
      expect(String((results[0] as PromiseRejectedResult).reason.cause ?? '')).toMatch(
        /can't run this command/,
      );
      expect(await admin.exists('g:a', 'g:b')).toBe(0);
      expect(await admin.get('alone')).toBe('1');
    } finally {
      client.disconnect();
    }
  });
});
