import Redis, { Cluster } from 'ioredis';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { Decision, RedisStore } from '../../src';
import { RedisClusterHandle, startRedisCluster } from '../helpers/redis-cluster';
import { RedisServer, startRedisServer, WITHOUT_FUNCTIONS } from '../helpers/redis-server';

interface Params {
  a: number;
  b: number;
}

/**
 * An app's algorithm whose reply weighs every argument by its place (a change of any of them,
 * one missing or one more changes it), and which then overwrites its argv: the engine hands a
 * run of one limit's entries, and a call that repeats the call before, one argv table, so
 * each decision must get a copy of its own. remaining: the weighted sum; resetMs: the key's
 * count * 100 + the number of arguments.
 */
const everyArgument: LimiterAlgorithm<Params, number, number> = {
  commandName: 'everyArgument',
  lua: `local sum, n = 0, #argv
for j = 1, n do
  sum = sum + j * tonumber(argv[j])
end
local count = redis.call('INCRBY', key, 1)
redis.call('PEXPIRE', key, 60000)
for j = 1, n do
  argv[j] = '1000'
end
argv[n + 1] = '1000'
table.remove(argv, 1)
return {1, sum, (count * 100 + n) * 1000, 0, 0}`,
  paramsArgv: (params) => [String(params.a), String(params.b)],
  requestArgv: (request) => [String(request)],
  step: (count, _now, params, request) => {
    const next = (count ?? 0) + 1;
    const sum = params.a + 2 * params.b + 3 * request;
    return { state: next, ttlMs: 60_000, reply: [1, sum, (next * 100 + 3) * 1000, 0, 0] };
  },
  limit: () => 1_000_000,
};

const params: Params = { a: 3, b: 5 };
/** What a decision of `request` that is the key's `count`th reads: its own three arguments. */
const expected = (request: number, count: number) => ({
  remaining: params.a + 2 * params.b + 3 * request,
  resetMs: count * 100 + 3,
});
const seen = (decision: Decision) => ({
  remaining: decision.remaining,
  resetMs: decision.resetMs,
});

/** The decisions a store makes alone, many at once on one key, and many on several keys. */
function decidesOnItsOwnArguments(
  store: () => RedisStore,
  admin: () => Redis | Cluster,
  keys: string[],
) {
  const decide = (key: string, request: number) =>
    store().evaluate({ algorithm: everyArgument, key, params, request });

  it('decided alone, one call each', async () => {
    const key = `${keys[0]}:alone`;
    const decisions: Decision[] = [];
    for (let i = 0; i < 4; i++) decisions.push(await decide(key, 7));
    expect(decisions.map(seen)).toEqual([1, 2, 3, 4].map((count) => expected(7, count)));
  });

  it('many at once on one key: one entry in full, its repeats on the same table', async () => {
    const key = `${keys[0]}:hot`;
    const decisions = await Promise.all(Array.from({ length: 25 }, () => decide(key, 7)));
    expect(decisions.map(seen)).toEqual(Array.from({ length: 25 }, (_, i) => expected(7, i + 1)));
    expect(await admin().get(key)).toBe('25');
  });

  it('many at once on several keys, the same request and others between', async () => {
    const requests = [7, 7, 7, 2, 2, 9, 7];
    const calls = keys.flatMap((key) => requests.map((request) => ({ key, request })));
    const decisions = await Promise.all(calls.map(({ key, request }) => decide(key, request)));
    const counts = new Map<string, number>();
    const wanted = calls.map(({ key, request }) => {
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      return expected(request, count);
    });
    expect(decisions.map(seen)).toEqual(wanted);
  });
}

describe("an app's algorithm on Redis gets exactly its own arguments", () => {
  // An app's algorithm makes the store run its engine as a script (EVALSHA), whether or not
  // the server has Functions: both servers are run, the engine's call counted on each.
  describe.each([
    ['with Functions', [] as string[]],
    ['without Functions', WITHOUT_FUNCTIONS],
  ])('a standalone Redis %s', (_name, args) => {
    let server: RedisServer;
    let admin: Redis;
    let store: RedisStore;
    beforeAll(async () => {
      server = await startRedisServer(args);
      admin = server.client();
      store = new RedisStore({ client: server.client(), cacheDenials: false });
      await store.check();
    });
    afterAll(async () => {
      await store.close();
      await server.stop();
    });
    beforeEach(() => admin.config('RESETSTAT'));
    afterEach(async () => {
      const info = await admin.info('commandstats');
      expect(info).not.toMatch(/^cmdstat_fcall:/m);
      expect(info).toMatch(/^cmdstat_evalsha:calls=[1-9]/m);
    });

    decidesOnItsOwnArguments(
      () => store,
      () => admin,
      ['custom:a', 'custom:b', 'custom:c'],
    );
  });

  describe('a 3-master Cluster (the keys passed in ARGV on each node)', () => {
    let cluster: RedisClusterHandle;
    let client: Cluster;
    let store: RedisStore;
    // Two keys of other slots on each master: one call per node, across its slots.
    const keys: string[] = [];
    beforeAll(async () => {
      cluster = await startRedisCluster({ replicas: 0 });
      client = cluster.client();
      store = new RedisStore({ client, cacheDenials: false });
      await store.check();
      const perMaster = new Map<number, string[]>();
      for (let i = 0; keys.length < 6; i++) {
        const key = `custom:${i}`;
        const port = await cluster.masterForKey(key);
        const onIt = perMaster.get(port) ?? [];
        if (onIt.length < 2) {
          onIt.push(key);
          perMaster.set(port, onIt);
          keys.push(key);
        }
      }
    }, 30_000);
    afterAll(async () => {
      await store?.close();
      await cluster?.stop();
    });

    it('places two keys on each master', async () => {
      const owners = await Promise.all(keys.map((key) => cluster.masterForKey(key)));
      expect(new Set(owners).size).toBe(3);
      expect(keys).toHaveLength(6);
    });

    decidesOnItsOwnArguments(
      () => store,
      () => client,
      keys,
    );
  });
});
