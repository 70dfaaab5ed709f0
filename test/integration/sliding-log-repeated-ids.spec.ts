import { slidingWindowLimit } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.definition';
import { slidingWindowLimitParams } from '../../src/algorithms/sliding-window-limit/sliding-window-limit.model';
import { Decision, LimiterStore, MemoryStore, RedisStore } from '../../src';
import { commandsRun, ENGINE_CALL } from '../helpers/command-stats';
import { RedisServer, startRedisServer, WITHOUT_FUNCTIONS } from '../helpers/redis-server';

type Request = { id: string; permits?: number };

/**
 * A sliding log's requests on one key in one call share the log's cell (window_of,
 * add_member), which holds each member once: a member the batch logs again cannot be added
 * to the cell, and the batch is run again one by one. These batches repeat an id, as the
 * property test does only by chance, and are held to the same requests one call each, and
 * to the memory twin where it agrees.
 */
// Run as FCALL of the library and as a script (EVALSHA), whose Lua starts afresh each call.
describe.each([
  ['FCALL', 'fcall', [] as string[]],
  ['EVALSHA', 'evalsha', WITHOUT_FUNCTIONS],
])('a sliding log batch that repeats a request id (%s)', (_path, given, args) => {
  // The helpers take Functions from every server under LIMITER_TEST_NO_FUNCTIONS.
  const engineCall = args.length > 0 ? given : ENGINE_CALL;
  let coalescing: RedisServer;
  let plain: RedisServer;
  let batched: RedisStore;
  let single: RedisStore;
  let nowMs = 1_700_000_000_000;
  let run = 0;
  const params = slidingWindowLimitParams({ limit: 3, window: 10 });

  beforeAll(async () => {
    // Two servers, so that the batched store's commands are counted alone.
    [coalescing, plain] = await Promise.all([startRedisServer(args), startRedisServer(args)]);
    const options = { now: () => nowMs, cacheDenials: false };
    batched = new RedisStore({ client: coalescing.client(), ...options });
    single = new RedisStore({ client: plain.client(), ...options, maxBatchSize: 1 });
    await Promise.all([batched.check(), single.check()]);
  });
  afterAll(async () => {
    await Promise.all([batched.close(), single.close()]);
    await Promise.all([coalescing.stop(), plain.stop()]);
  });

  const shown = (decisions: Decision[]) =>
    decisions.map(({ allowed, remaining, resetMs, retryAfterMs }) => ({
      allowed,
      remaining,
      resetMs,
      retryAfterMs,
    }));

  /** `requests` on one key: together in one call, then one call each, then in memory. */
  async function decideThrice(before: Request[], requests: Request[]) {
    const key = `log:${++run}`;
    nowMs += 60_000;
    const memory = new MemoryStore({ now: () => nowMs });
    const decide = (store: LimiterStore, request: Request) =>
      store.evaluate({ algorithm: slidingWindowLimit, key, params, request });
    for (const request of before) {
      for (const store of [batched, single, memory]) await decide(store, request);
    }
    nowMs += 1_000;
    const admin = coalescing.client();
    await admin.config('RESETSTAT');
    const together = await Promise.all(requests.map((request) => decide(batched, request)));
    const calls = await commandsRun(admin);
    const oneByOne: Decision[] = [];
    const inMemory: Decision[] = [];
    for (const request of requests) {
      oneByOne.push(await decide(single, request));
      inMemory.push(await decide(memory, request));
    }
    const logs = await Promise.all(
      [coalescing, plain].map((server) => server.client().zrange(key, '0', '-1', 'WITHSCORES')),
    );
    return {
      together: shown(together),
      oneByOne: shown(oneByOne),
      inMemory: shown(inMemory),
      calls,
      logs,
      at: String(nowMs * 1000),
    };
  }

  const allowed = (remaining: number) => ({
    allowed: true,
    remaining,
    resetMs: 10_000,
    retryAfterMs: 0,
  });

  it('the same id at another weight is another member: decided in the cell, as one by one and in memory', async () => {
    const { together, oneByOne, inMemory, calls, logs, at } = await decideThrice(
      [],
      [{ id: 'r' }, { id: 'r', permits: 2 }, { id: 'x' }],
    );
    expect(together).toEqual([
      allowed(2),
      allowed(0),
      { allowed: false, remaining: 0, resetMs: 10_000, retryAfterMs: 10_000 },
    ]);
    expect(oneByOne).toEqual(together);
    expect(inMemory).toEqual(together);
    // One read, one ZADD: the cell took both members.
    expect(calls).toEqual({ [engineCall]: 1, time: 1, zrange: 1, zadd: 1, pexpire: 1 });
    expect(logs[0]).toEqual(['r', at, 'r\u00002', at]);
    expect(logs[1]).toEqual(logs[0]);
  });

  // An identical member twice: ZADD moves the member logged, it adds none, so Redis counts
  // the id once after both were allowed; the memory twin logs it twice. Ids are meant to be
  // unique per request: Redis coalesced and one by one agree, the twin does not.
  it('an identical member twice: one by one in the same call, as one call each; memory counts it twice', async () => {
    const { together, oneByOne, inMemory, calls, logs, at } = await decideThrice(
      [],
      [{ id: 'r' }, { id: 'r' }, { id: 'x' }, { id: 'y' }],
    );
    expect(together).toEqual([allowed(2), allowed(1), allowed(1), allowed(0)]);
    expect(oneByOne).toEqual(together);
    expect(logs[0]).toEqual(['r', at, 'x', at, 'y', at]);
    expect(logs[1]).toEqual(logs[0]);
    // The cell gave up at the second 'r' (written nothing), then each ran on its own.
    expect(calls).toEqual({ [engineCall]: 1, time: 1, zrange: 5, zadd: 4, pexpire: 4 });
    expect(inMemory).toEqual([
      allowed(2),
      allowed(1),
      allowed(0),
      { allowed: false, remaining: 0, resetMs: 10_000, retryAfterMs: 10_000 },
    ]);
  });

  it('an id logged by an earlier call, asked again in a batch: one by one, as one call each', async () => {
    const { together, oneByOne, inMemory, calls, logs, at } = await decideThrice(
      [{ id: 'r' }],
      [{ id: 'x' }, { id: 'r' }, { id: 'y' }],
    );
    expect(together).toEqual([allowed(1), allowed(0), allowed(0)]);
    expect(oneByOne).toEqual(together);
    // 'r' moved to now, still one member: the log holds 3 after 'y'.
    expect(logs[0]).toEqual(['r', at, 'x', at, 'y', at]);
    expect(logs[1]).toEqual(logs[0]);
    expect(calls).toEqual({ [engineCall]: 1, time: 1, zrange: 4, zadd: 3, pexpire: 3 });
    // The twin logs 'r' twice: 'y' finds its log full until the first 'r' ages out.
    expect(inMemory).toEqual([
      allowed(1),
      allowed(0),
      { allowed: false, remaining: 0, resetMs: 10_000, retryAfterMs: 9_000 },
    ]);
  });
});
