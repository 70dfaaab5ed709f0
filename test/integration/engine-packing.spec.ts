import Redis from 'ioredis';
import { countLimit } from '../../src/algorithms/count-limit/count-limit.definition';
import { countLimitParams } from '../../src/algorithms/count-limit/count-limit.model';
import { LimiterAlgorithm } from '../../src/algorithms/limiter-algorithm';
import { RedisStore, StoreUnavailableError } from '../../src';
import { StoreReplyError } from '../../src/stores/store-reply.error';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** A custom algorithm whose reply is its argv, read as numbers, and which fails on 'fail'. */
const echo: LimiterAlgorithm<{ first: string }, string, never> = {
  commandName: 'echoNumbers',
  lua: `if argv[2] == 'fail' then error({err = 'ERR failed, on purpose: a,b'}) end
return {1, tonumber(argv[1]), tonumber(argv[2]), 0, 3.7}`,
  paramsArgv: (params) => [params.first],
  requestArgv: (request) => [request],
  step: () => ({ state: undefined, ttlMs: null, reply: [1, 0, 0, 0, 0] }),
  limit: () => 1,
};

/** A custom algorithm that takes its first argument off its argv, and answers the next. */
const shift: LimiterAlgorithm<{ first: string; second: string }, undefined, never> = {
  commandName: 'shiftFirst',
  lua: `table.remove(argv, 1)
return {1, tonumber(argv[1]), 0, 0, 0}`,
  paramsArgv: (params) => [params.first, params.second],
  step: () => ({ state: undefined, ttlMs: null, reply: [1, 0, 0, 0, 0] }),
  limit: () => 1,
};

/** The arguments of the last EVALSHA Redis logged: SLOWLOG keeps 32, then says how many more. */
async function lastScriptArguments(admin: Redis): Promise<number> {
  const entries = (await admin.call('SLOWLOG', 'GET', '100')) as [
    number,
    number,
    number,
    string[],
  ][];
  const argv = entries.map((entry) => entry[3]).find((args) => /^(evalsha|fcall)$/i.test(args[0]))!;
  const more = /^\.\.\. \((\d+) more arguments\)$/.exec(argv[argv.length - 1]);
  return more ? argv.length - 1 + Number(more[1]) : argv.length;
}

describe('a batch packed in a few arguments, its reply in one value', () => {
  let server: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
    store = new RedisStore({ client: server.client() });
    await store.check();
  });
  afterAll(async () => {
    await store.close();
    await server.stop();
  });

  it('sends 50 decisions as their keys and two more arguments, not ~7 per decision', async () => {
    const params = countLimitParams({ limit: 10, period: 60 });
    await admin.config('SET', 'slowlog-log-slower-than', '0');
    await admin.slowlog('RESET');
    const keys = Array.from({ length: 50 }, (_, i) => `packed:${i}`);
    const decisions = await Promise.all(
      keys.map((key) =>
        store.evaluate({ algorithm: countLimit, key, params, request: { permits: 2 } }),
      ),
    );
    await admin.config('SET', 'slowlog-log-slower-than', '10000');
    expect(decisions.map((decision) => decision.remaining)).toEqual(Array(50).fill(8));
    // EVALSHA, the sha, the count of keys, 50 keys, the deadline and the packed entries.
    expect(await lastScriptArguments(admin)).toBe(3 + 50 + 2);
  });

  it('decodes each entry of the packed reply exactly: large integers, negatives, failures', async () => {
    const large = String(2 ** 52 + 1);
    const [big, failed, negative] = await Promise.allSettled([
      store.evaluate({
        algorithm: echo,
        key: 'echo:big',
        params: { first: large },
        request: '123456789012345',
      }),
      store.evaluate({
        algorithm: echo,
        key: 'echo:failed',
        params: { first: '1' },
        request: 'fail',
      }),
      store.evaluate({
        algorithm: echo,
        key: 'echo:negative',
        params: { first: '0' },
        request: '-5',
      }),
    ]);
    // remaining is argv[1]; resetMs argv[2] µs; a wait of 3.7 µs truncated as Redis does.
    expect(big).toEqual({
      status: 'fulfilled',
      value: expect.objectContaining({
        remaining: 2 ** 52 + 1,
        resetMs: 123456789012345 / 1000,
        waitMs: 3 / 1000,
      }),
    });
    expect(failed.status).toBe('rejected');
    const reason = (failed as PromiseRejectedResult).reason as Error;
    expect(reason).toBeInstanceOf(StoreUnavailableError);
    expect((reason as StoreUnavailableError & { cause: Error }).cause).toEqual(
      new StoreReplyError('ERR failed, on purpose: a,b'),
    );
    expect(negative).toEqual({
      status: 'fulfilled',
      value: expect.objectContaining({ remaining: 0, resetMs: -5 / 1000 }),
    });
  });

  it("gives an app's algorithm its own argv to write: one limit's run on other keys answers alike", async () => {
    // The engine passes such a run one argv table, which its own algorithms never write.
    const decisions = await Promise.all(
      ['a', 'b', 'c'].map((key) =>
        store.evaluate({
          algorithm: shift,
          key: `shift:${key}`,
          params: { first: '7', second: '5' },
          request: undefined,
        }),
      ),
    );
    expect(decisions.map((decision) => decision.remaining)).toEqual([5, 5, 5]);
  });

  it('fails only the decision whose argument holds a NUL; the others of its turn are decided', async () => {
    const params = countLimitParams({ limit: 10, period: 60 });
    const [nul, neighbour] = await Promise.allSettled([
      store.evaluate({ algorithm: echo, key: 'echo:nul', params: { first: '1' }, request: 'a\0b' }),
      store.evaluate({
        algorithm: countLimit,
        key: 'packed:neighbour',
        params,
        request: undefined,
      }),
    ]);
    expect(nul.status).toBe('rejected');
    expect(((nul as PromiseRejectedResult).reason as Error).message).toContain('NUL');
    expect((nul as PromiseRejectedResult).reason).not.toBeInstanceOf(StoreUnavailableError);
    expect(neighbour).toEqual({
      status: 'fulfilled',
      value: expect.objectContaining({ allowed: true, remaining: 9 }),
    });
  });
});
