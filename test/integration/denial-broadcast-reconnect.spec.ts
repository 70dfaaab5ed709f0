import Redis, { RedisOptions } from 'ioredis';
import { RedisStore } from '../../src';
import { FORGET_CHANNEL } from '../../src/stores/redis/denial-broadcast';
import { eventually } from '../helpers/eventually';
import { RedisServer, startRedisServer } from '../helpers/redis-server';
import { RespProxy, startRespProxy } from '../helpers/resp-proxy';

/**
 * The connection a store listens on for announcements, when the endpoint drops it (a restart,
 * a failover): it subscribes again, and closing the store meanwhile leaves no promise
 * rejected with nobody listening. Jest fails the running test with such a rejection, as Node
 * crashes the app with it.
 */
describe('denial announcements across a dropped connection', () => {
  let redis: RedisServer;
  let proxy: RespProxy;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterEach(() => proxy.close());
  afterAll(() => redis.stop());

  /** A store on the proxy, and the listening connection it opens (its client's duplicate). */
  async function listeningStore() {
    proxy = await startRespProxy(redis.port, {});
    const client = new Redis(proxy.url, { lazyConnect: true });
    client.on('error', () => undefined);
    let subscriber: Redis | undefined;
    const duplicate = client.duplicate.bind(client);
    client.duplicate = (options?: Partial<RedisOptions>) => (subscriber = duplicate(options));
    const store = new RedisStore({ client, ownsClient: true });
    await store.check();
    expect(await eventually(async () => store.broadcast!.listening, true)).toBe(true);
    return { store, subscriber: subscriber! };
  }

  const subscriptions = async () =>
    ((await admin.pubsub('NUMSUB', FORGET_CHANNEL)) as [string, number])[1];

  it('subscribes again once the connection is back: heard again, on one connection', async () => {
    const { store, subscriber } = await listeningStore();
    proxy.dropConnections();
    await new Promise<void>((resolve) => subscriber.once('close', () => resolve()));
    expect(store.broadcast!.listening).toBe(false);
    expect(await eventually(async () => store.broadcast!.listening, true)).toBe(true);
    expect(await subscriptions()).toBe(1);
    await store.close();
    expect(await eventually(subscriptions, 0)).toBe(0);
  });

  it('closed the moment the connection is back, before Redis confirms: nothing left unheard', async () => {
    const { store, subscriber } = await listeningStore();
    proxy.dropConnections();
    await new Promise<void>((resolve) => subscriber.once('ready', () => resolve()));
    // Its subscription is on the wire, not yet answered: the close loses the answer.
    await store.close();
    if (subscriber.status !== 'end') {
      await new Promise<void>((resolve) => subscriber.once('end', () => resolve()));
    }
    // A rejection nobody handles is reported once the microtasks of 'end' have run.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(subscriber.status).toBe('end');
    expect(store.broadcast!.listening).toBe(false);
  });
});
