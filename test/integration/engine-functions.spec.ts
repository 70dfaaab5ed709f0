import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { BUILT_IN_ENGINE, ENGINE_LIBRARY } from '../../src/stores/redis/engine/script';
import { CaptureLogger } from '../helpers/capture-logger';
import { RedisServer, startRedisServer, WITHOUT_FUNCTIONS } from '../helpers/redis-server';
import { Logger } from '@nestjs/common';

/** Engine calls Redis ran, by command: FCALL (the library) or EVALSHA / EVAL (the script). */
async function engineCalls(admin: Redis): Promise<{ fcall: number; evalsha: number }> {
  const stats = await admin.info('commandstats');
  const calls = (name: string) =>
    Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { fcall: calls('fcall'), evalsha: calls('evalsha') + calls('eval') };
}

const libraries = async (admin: Redis) =>
  ((await admin.call('FUNCTION', 'LIST')) as unknown[][]).map((library) => String(library[1]));

/** 200 decisions at once on 20 keys of a limit of 5: exactly 5 allowed per key. */
async function burst(factory: RateLimiterFactory, prefix: string): Promise<Map<string, number>> {
  const keys = Array.from({ length: 20 }, (_, i) => `${prefix}${i}`);
  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      factory
        .countLimiter({ key: keys[i % 20], limit: 5, period: 60 })
        .tryAcquire()
        .then((allowed) => [keys[i % 20], allowed] as const),
    ),
  );
  const allowed = new Map<string, number>();
  for (const [key, ok] of results) allowed.set(key, (allowed.get(key) ?? 0) + (ok ? 1 : 0));
  return allowed;
}

/**
 * A store closed after its test. Closing its client is not enough: a client disconnected while
 * it waits to reconnect (after the restart test) emits no 'end', so the store's announcements
 * connection would go on reconnecting to a stopped server and keep jest alive.
 */
const stores: RedisStore[] = [];
function storeOn(client: Redis): RedisStore {
  const store = new RedisStore({ client });
  stores.push(store);
  return store;
}
afterEach(() => Promise.all(stores.splice(0).map((store) => store.close())));

const fivePerKey = (prefix: string) =>
  new Map(Array.from({ length: 20 }, (_, i) => [`${prefix}${i}`, 5]));

// LIMITER_TEST_NO_FUNCTIONS takes Functions away from every server the helpers start.
const withFunctions = process.env.LIMITER_TEST_NO_FUNCTIONS ? describe.skip : describe;

withFunctions('the engine as a Redis Functions library (Redis 7)', () => {
  let redis: RedisServer;
  let admin: Redis;
  const logs: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
    jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => {
      logs.push(String(message));
    });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await redis.stop();
  });

  it('loads its versioned library at start-up, logs it once, and decides with FCALL', async () => {
    logs.length = 0;
    const store = storeOn(redis.client());
    await store.check();
    expect(await libraries(admin)).toEqual([BUILT_IN_ENGINE.libraryName]);
    await admin.config('RESETSTAT');
    expect(await burst(new RateLimiterFactory(store), 'fn:')).toEqual(fivePerKey('fn:'));
    const calls = await engineCalls(admin);
    expect(calls.evalsha).toBe(0);
    expect(calls.fcall).toBeGreaterThan(0);
    expect(logs.filter((line) => /Functions library nestjs_limiter_\w+ loaded/.test(line))).toEqual(
      [`Redis Functions library ${BUILT_IN_ENGINE.libraryName} loaded: decisions run as FCALL`],
    );
  });

  it('serves beside another version of the library, which it leaves in place', async () => {
    const other = ENGINE_LIBRARY.replaceAll(
      BUILT_IN_ENGINE.libraryName,
      'nestjs_limiter_000000000000',
    );
    await admin.call('FUNCTION', 'LOAD', other);
    const store = storeOn(redis.client());
    await store.check();
    expect(await burst(new RateLimiterFactory(store), 'side:')).toEqual(fivePerKey('side:'));
    expect((await libraries(admin)).sort()).toEqual(
      ['nestjs_limiter_000000000000', BUILT_IN_ENGINE.libraryName].sort(),
    );
    await admin.call('FUNCTION', 'DELETE', 'nestjs_limiter_000000000000');
  });

  it('loads the library again after FUNCTION FLUSH, deciding every request exactly meanwhile', async () => {
    const store = storeOn(redis.client());
    await store.check();
    const factory = new RateLimiterFactory(store);
    await admin.config('RESETSTAT');
    await admin.call('FUNCTION', 'FLUSH');
    // The first batch finds the library missing: it goes as a script, and the library loads.
    expect(await burst(factory, 'flush:')).toEqual(fivePerKey('flush:'));
    expect(await libraries(admin)).toEqual([BUILT_IN_ENGINE.libraryName]);
    const afterLoad = await engineCalls(admin);
    expect(afterLoad.evalsha).toBeGreaterThan(0);
    expect(await burst(factory, 'flushed:')).toEqual(fivePerKey('flushed:'));
    expect((await engineCalls(admin)).evalsha).toBe(afterLoad.evalsha);
    expect(await admin.info('errorstats')).toMatch(/errorstat_ERR:count=[1-9]/);
  });

  it('loads the library again on a server restarted without persistence, no decision lost', async () => {
    const client = redis.client();
    const store = storeOn(client);
    await store.check();
    const factory = new RateLimiterFactory(store);
    expect(await burst(factory, 'before:')).toEqual(fivePerKey('before:'));
    await redis.kill();
    await redis.start();
    expect(await libraries(admin)).toEqual([]);
    expect(await burst(factory, 'restarted:')).toEqual(fivePerKey('restarted:'));
    expect(await libraries(admin)).toEqual([BUILT_IN_ENGINE.libraryName]);
  });
});

describe('the engine where Redis refuses Functions (rename-command FUNCTION "")', () => {
  let redis: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedisServer(WITHOUT_FUNCTIONS);
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  it('decides with EVALSHA, chosen at start-up and logged once', async () => {
    const logger = new CaptureLogger();
    jest.spyOn(Logger.prototype, 'log').mockImplementation((message: unknown) => {
      logger.log(message);
    });
    try {
      const store = storeOn(redis.client());
      await store.check();
      await admin.config('RESETSTAT');
      const factory = new RateLimiterFactory(store);
      expect(await burst(factory, 'eval:')).toEqual(fivePerKey('eval:'));
      expect(await burst(factory, 'again:')).toEqual(fivePerKey('again:'));
      const calls = await engineCalls(admin);
      expect(calls.fcall).toBe(0);
      expect(calls.evalsha).toBeGreaterThan(0);
      expect(logger.count('log', /Redis refused Functions \(ERR unknown command.*EVALSHA/)).toBe(1);
      expect(logger.lines).toHaveLength(1);
    } finally {
      jest.restoreAllMocks();
    }
  });
});
