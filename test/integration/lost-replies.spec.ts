import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { eventually } from '../helpers/eventually';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { RespProxy, startRespProxy } from '../helpers/resp-proxy';

/**
 * A state change whose reply is lost is applied once. The store reaches Redis through a
 * proxy; Redis is frozen (SIGSTOP) while the call is on its way, the proxy then drops both
 * connections, and Redis, thawed, runs what it had received and answers into a closed
 * socket. ioredis reconnects, and would send the unanswered call again.
 */
describe('engine calls whose reply is lost', () => {
  let redis: RedisServer;
  let proxy: RespProxy;
  let admin: Redis;
  const stores: RedisStore[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    proxy = await startRespProxy(redis.port, {});
    admin = redis.client();
  });
  afterAll(async () => {
    for (const store of stores) await store.close();
    await proxy.close();
    await redis.stop();
  });

  async function server() {
    const client = new Redis(proxy.url);
    client.on('error', () => undefined);
    const store = new RedisStore({ client, ownsClient: true });
    stores.push(store);
    await store.check();
    return { client, store, factory: new RateLimiterFactory(store) };
  }

  /** Runs `send` so that Redis runs its call but its reply never reaches the app. */
  async function withReplyLost(client: Redis, send: () => Promise<unknown>): Promise<void> {
    redis.freeze();
    const pending = send().catch(() => undefined);
    // The call leaves at the end of this turn and waits in the frozen Redis's socket.
    await new Promise((resolve) => setTimeout(resolve, 100));
    proxy.dropConnections();
    redis.thaw();
    await pending;
    // Reconnected, and whatever ioredis sent again has run before this PING's answer.
    expect(await eventually(async () => client.status, 'ready', 5000)).toBe('ready');
    await client.ping();
  }

  const count = async (key: string) => Number(await admin.get(`countLimit:${key}`));

  it('an acquire counts its request once', async () => {
    const { client, factory } = await server();
    const limiter = factory.countLimiter({ key: 'lost-acquire', limit: 10, period: 600 });
    await withReplyLost(client, () => limiter.tryAcquire());
    expect(await count('lost-acquire')).toBe(1);
  });

  it('a refund of 4 on a count of 10 leaves 6', async () => {
    const { client, factory } = await server();
    const limiter = factory.countLimiter({ key: 'lost-refund', limit: 10, period: 600 });
    for (let i = 0; i < 10; i++) expect(await limiter.tryAcquire()).toBe(true);
    await withReplyLost(client, () => limiter.refund(4));
    expect(await count('lost-refund')).toBe(6);
  });

  it('a lease that gives back 4 of 10 leaves 6', async () => {
    const { client, store, factory } = await server();
    const limiter = factory.countLimiter({
      key: 'lost-give-back',
      limit: 1000,
      period: 600,
      lease: 10,
    });
    for (let i = 0; i < 6; i++) expect(await limiter.tryAcquire()).toBe(true);
    expect(await count('lost-give-back')).toBe(10);
    await withReplyLost(client, () => store.endLeases());
    expect(await count('lost-give-back')).toBe(6);
  });
});
