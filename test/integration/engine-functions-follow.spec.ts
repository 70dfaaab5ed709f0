import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { eventually } from '../helpers/eventually';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

const LIMIT = 20;
const REQUESTS = 25;

/** Engine calls Redis ran, by command: FCALL (the library) or EVALSHA / EVAL (the script). */
async function engineCalls(admin: Redis): Promise<{ fcall: number; evalsha: number }> {
  const stats = await admin.info('commandstats');
  const calls = (name: string) =>
    Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
  return { fcall: calls('fcall'), evalsha: calls('evalsha') + calls('eval') };
}

/** 25 decisions at once on a fresh key of a limit of 20: allowed, denied, store errors. */
async function round(factory: RateLimiterFactory, key: string) {
  const limiter = factory.countLimiter({ key, limit: LIMIT, period: 60 });
  const results = await Promise.all(
    Array.from({ length: REQUESTS }, () =>
      limiter.tryAcquire().then(
        (allowed) => (allowed ? 'allowed' : 'denied'),
        () => 'error',
      ),
    ),
  );
  const count = (what: string) => results.filter((result) => result === what).length;
  return { allowed: count('allowed'), denied: count('denied'), errors: count('error') };
}

const EXACT = { allowed: LIMIT, denied: REQUESTS - LIMIT, errors: 0 };

// LIMITER_TEST_NO_FUNCTIONS takes Functions away from every server: nothing to lose then.
const withFunctions = process.env.LIMITER_TEST_NO_FUNCTIONS ? describe.skip : describe;

withFunctions('FCALL or EVALSHA follows what the endpoint takes, at run time, both ways', () => {
  let redis: RedisServer;
  let admin: Redis;
  let store: RedisStore;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterEach(() => store?.close());
  afterAll(() => redis.stop());

  it('FCALL revoked from the user: EVALSHA at once, every round exact; granted again: FCALL after the reconnect', async () => {
    await admin.acl('SETUSER', 'app', 'on', '>pw', '~*', '&*', '+@all');
    const client = redis.client({ username: 'app', password: 'pw' });
    store = new RedisStore({ client });
    await store.check();
    const factory = new RateLimiterFactory(store);
    expect(await round(factory, 'before')).toEqual(EXACT);
    expect((await engineCalls(admin)).fcall).toBeGreaterThan(0);

    // A failover onto a server whose ACL lacks FCALL, as far as this connection can tell.
    await admin.acl('SETUSER', 'app', '-fcall');
    await admin.config('RESETSTAT');
    for (let i = 0; i < 4; i++) expect(await round(factory, `revoked:${i}`)).toEqual(EXACT);
    const revoked = await engineCalls(admin);
    expect(revoked.evalsha).toBeGreaterThanOrEqual(4);
    // The one FCALL that found it refused ran nothing (it went again as EVALSHA).
    expect(revoked.fcall).toBe(0);

    // FCALL back, and a reconnect (the probe runs on every one): FCALL again.
    await admin.acl('SETUSER', 'app', '+fcall');
    await admin.client('KILL', 'USER', 'app');
    const fcallAgain = async () => {
      await admin.config('RESETSTAT');
      const exact = JSON.stringify(await round(factory, `granted:${Date.now()}`));
      const calls = await engineCalls(admin);
      return exact === JSON.stringify(EXACT) && calls.evalsha === 0 && calls.fcall > 0;
    };
    expect(await eventually(fcallAgain, true, 5000)).toBe(true);
  });

  it('the server replaced by one without FCALL (renamed away): EVALSHA, every round exact', async () => {
    store = new RedisStore({ client: redis.client() });
    await store.check();
    const factory = new RateLimiterFactory(store);
    expect(await round(factory, 'first')).toEqual(EXACT);
    await redis.kill();
    await redis.start(['--rename-command', 'FCALL', '']);
    // The reconnect itself may fail a round; from then on, every round is exact.
    const settled = await eventually(
      async () => (await round(factory, `r:${Date.now()}`)).errors,
      0,
    );
    expect(settled).toBe(0);
    for (let i = 0; i < 3; i++) expect(await round(factory, `replaced:${i}`)).toEqual(EXACT);
    expect((await engineCalls(redis.client())).evalsha).toBeGreaterThanOrEqual(4);
  });
});
