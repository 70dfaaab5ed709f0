import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * A reset on one server frees the key on every other at once, whatever the
 * timing: a reset just after another server's first denial (before its subscription is
 * confirmed), and a reset whose announcement reaches a server before the reply of a denial
 * Redis decided just before the reset.
 */
describe('a reset reaches every server whatever the timing', () => {
  let server: RedisServer;
  let admin: Redis;
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await server.stop();
  });

  function newServer(): { store: RedisStore; client: Redis; factory: RateLimiterFactory } {
    const client = server.client();
    const store = new RedisStore({ client });
    stores.push(store);
    return { store, client, factory: new RateLimiterFactory(store) };
  }
  /**
   * Resolves once `store`'s subscriber has handled its next announcement: this listener comes
   * after the store's own on the same connection, so it runs after it.
   */
  function nextAnnouncement(store: RedisStore): Promise<unknown> {
    type Listening = { broadcast: { subscriber: Redis } };
    const { subscriber } = (store as unknown as Listening).broadcast;
    return new Promise((resolve) => subscriber.once('message', resolve));
  }
  const countOn = (factory: RateLimiterFactory, key: string) =>
    factory.countLimiter({ key, limit: 1, period: 3600 });

  it("a reset 0-5 ms after another server's first denial frees the key there", async () => {
    const a = newServer();
    const failures: number[] = [];
    for (let round = 0; round < 30; round++) {
      const key = `first-denial:${round}`;
      const b = newServer(); // a server that has not listened yet
      expect(await countOn(a.factory, key).tryAcquire()).toBe(true);
      expect(await countOn(b.factory, key).tryAcquire()).toBe(false);
      await countOn(a.factory, key).reset();
      if (!(await countOn(b.factory, key).tryAcquire())) failures.push(round);
    }
    expect(failures).toEqual([]);
  });

  it('a denial whose reply arrives after the reset’s announcement is not remembered', async () => {
    const a = newServer();
    const b = newServer();
    // b listens: its subscription is confirmed before the rounds start.
    await b.store.check();
    const failures: number[] = [];
    for (let round = 0; round < 30; round++) {
      const key = `reordered:${round}`;
      expect(await countOn(a.factory, key).tryAcquire()).toBe(true);
      const denial = countOn(b.factory, key).tryAcquire();
      await new Promise((resolve) => setImmediate(resolve)); // sent
      // b's command connection is read late (a busy server); its announcements are not.
      const socket = (b.client as unknown as { stream: NodeJS.ReadableStream }).stream;
      socket.pause();
      // Redis ran b's decision first: a's reset comes after it on a's own connection.
      await admin.call('PING');
      const heard = nextAnnouncement(b.store);
      await countOn(a.factory, key).reset();
      await heard; // b's subscriber has read the news
      socket.resume();
      expect(await denial).toBe(false);
      if (!(await countOn(b.factory, key).tryAcquire())) failures.push(round);
    }
    expect(failures).toEqual([]);
  });
});
