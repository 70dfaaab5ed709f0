import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { eventually } from '../helpers/eventually';
import { allowedOf } from '../helpers/in-flight';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** What Redis counts on a counter key: the permits admitted and those leased, as taken. */
async function countOf(client: Redis, key: string): Promise<number> {
  return Number((await client.get(`countLimit:${key}`)) ?? 0);
}

/** `leased` once it is 0, or after 100 ms (a lease lives for a second): the announcement heard. */
const heard = (leased: () => number) => eventually(async () => leased(), 0, 100);

/**
 * A reset on one server ends every server's lease of the key at once, and a limit's new
 * parameters end the leases of its old ones before any lease serves under the new.
 */
describe('leases across resets and new parameters', () => {
  let redis: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  async function server(cacheDenials?: boolean) {
    const store = new RedisStore({ client: redis.client(), ownsClient: true, cacheDenials });
    await store.check();
    return { store, factory: new RateLimiterFactory(store) };
  }

  it.each([true, false])(
    'a reset on server B ends server A lease: A serves nothing it leased before, and gives none of it back (denials cached: %s)',
    async (cacheDenials) => {
      const key = `reset-${cacheDenials}`;
      const options = { key, limit: 100, period: 600, lease: 20 };
      const [a, b] = [await server(cacheDenials), await server(cacheDenials)];
      const onA = a.factory.countLimiter(options);
      for (let i = 0; i < 5; i++) expect(await onA.tryAcquire()).toBe(true);
      expect([await countOf(admin, key), a.store.leasedOn(`countLimit:${key}`)]).toEqual([20, 15]);

      await b.factory.countLimiter(options).reset();
      // A hears it as Redis passes it on: well within the second its lease had left.
      expect(await heard(() => a.store.leasedOn(`countLimit:${key}`))).toBe(0);
      // After the reset A leases again: each permit it hands out is counted in Redis.
      for (let i = 0; i < 10; i++) expect(await onA.tryAcquire()).toBe(true);
      expect(await countOf(admin, key)).toBe(20);
      await a.store.close();
      // What goes back is what A leased after the reset and did not use: the 10 it admitted
      // are counted, and nothing of the lease made before the reset.
      expect(await countOf(admin, key)).toBe(10);
      await b.store.close();
    },
  );

  it('a block on server B ends server A lease too: A decides in Redis and is denied', async () => {
    const options = { key: 'block', limit: 100, period: 600, lease: 20 };
    const [a, b] = [await server(), await server()];
    const onA = a.factory.countLimiter(options);
    expect(await onA.tryAcquire()).toBe(true);
    expect(a.store.leasedOn('countLimit:block')).toBe(19);
    await b.factory.countLimiter(options).block(60);
    expect(await heard(() => a.store.leasedOn('countLimit:block'))).toBe(0);
    expect(await onA.tryAcquire()).toBe(false);
    await Promise.all([a.store.close(), b.store.close()]);
  });

  it('new parameters on a key end the lease of the old ones first: their unused permits go back before the new limit leases', async () => {
    const { store, factory } = await server();
    // An override replaces a limit's parameters object, as a second limiter on the key does.
    const before = factory.countLimiter({ key: 'override', limit: 1000, period: 600, lease: 100 });
    for (let i = 0; i < 10; i++) expect(await before.tryAcquire()).toBe(true);
    expect(await countOf(admin, 'override')).toBe(100);
    const after = factory.countLimiter({ key: 'override', limit: 50, period: 600, lease: 20 });
    // 10 admitted under the old limit: exactly 40 more under the new one.
    expect(await allowedOf(() => after.tryAcquire(), 100)).toBe(40);
    expect(store.leasedOn('countLimit:override')).toBe(0);
    await store.close();
    expect(await countOf(admin, 'override')).toBe(50);
  });

  it('the old parameters lease asked for before the change gives back, as it arrives, what its requests did not take', async () => {
    const { store, factory } = await server();
    const before = factory.countLimiter({ key: 'in-flight', limit: 1000, period: 600, lease: 100 });
    const after = factory.countLimiter({ key: 'in-flight', limit: 1000, period: 600, lease: 10 });
    // The first request under the old parameters is waiting for its lease when the new
    // parameters' first request comes.
    const first = before.tryAcquire();
    const second = after.tryAcquire();
    expect([await first, await second]).toEqual([true, true]);
    // The old lease's 99 went back before the new lease took its 10: 1 + 10 counted.
    expect(await countOf(admin, 'in-flight')).toBe(11);
    await store.close();
    expect(await countOf(admin, 'in-flight')).toBe(2);
  });

  it('leases ended by an override while asked for give back before a lease of the new parameters asks', async () => {
    const { store, factory } = await server();
    const before = factory.countLimiter({ key: 'ended', limit: 1000, period: 600, lease: 100 });
    const after = factory.countLimiter({ key: 'ended', limit: 30, period: 600, lease: 10 });
    const first = before.tryAcquire();
    // What the admin does when it picks up an override, while the old lease is asked for.
    const ended = store.endLeases();
    // The old lease's 99 unused go back first: 29 are left under the new limit, not none.
    expect(await after.tryAcquire()).toBe(true);
    expect(await first).toBe(true);
    await ended;
    expect(await countOf(admin, 'ended')).toBe(11);
    await store.close();
    expect(await countOf(admin, 'ended')).toBe(2);
  });

  it('a reset on the server itself while its lease is asked for: the permits granted before the reset are not handed out', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'asking', limit: 100, period: 600, lease: 20 });
    // The lease's 20 and then the reset go to Redis in that order: the 20 are gone with the
    // reset, and the request that waited for them is decided in Redis after it.
    const [allowed] = await Promise.all([limiter.tryAcquire(), limiter.reset()]);
    expect(allowed).toBe(true);
    expect([await countOf(admin, 'asking'), store.leasedOn('countLimit:asking')]).toEqual([1, 0]);
    await store.close();
    expect(await countOf(admin, 'asking')).toBe(1);
  });

  it('a server that cannot hear resets (the ACL refuses the channel) leases nothing: Redis decides each request', async () => {
    await admin.call('ACL', 'SETUSER', 'deaf', 'on', '>pw', '~*', '+@all', '-subscribe');
    const client = new Redis(redis.port, '127.0.0.1', { username: 'deaf', password: 'pw' });
    const store = new RedisStore({ client });
    await store.check();
    const limiter = new RateLimiterFactory(store).countLimiter({
      key: 'deaf',
      limit: 100,
      period: 600,
      lease: 20,
    });
    for (let i = 0; i < 3; i++) expect(await limiter.tryAcquire()).toBe(true);
    expect([await countOf(admin, 'deaf'), store.leasedOn('countLimit:deaf')]).toEqual([3, 0]);
    await store.close();
    client.disconnect();
  });

  it('a server whose listening connection is lost forgets its leases, given back to no one (a reset made meanwhile would go unheard)', async () => {
    const { store, factory } = await server();
    const limiter = factory.countLimiter({ key: 'lost', limit: 100, period: 600, lease: 20 });
    expect(await limiter.tryAcquire()).toBe(true);
    expect(store.leasedOn('countLimit:lost')).toBe(19);
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    expect(await heard(() => store.leasedOn('countLimit:lost'))).toBe(0);
    // The 19 stay taken (fewer admitted, never more); the connection comes back by itself.
    await store.close();
    expect(await countOf(admin, 'lost')).toBe(20);
  });
});
