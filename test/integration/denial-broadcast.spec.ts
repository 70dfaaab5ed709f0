import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { eventually } from '../helpers/eventually';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** The pub/sub that keeps other servers' remembered denials true. */
describe('denial announcements', () => {
  let redis: RedisServer;
  let admin: Redis;

  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  const clientCount = async () =>
    String(await admin.client('LIST'))
      .trim()
      .split('\n').length;

  it('a store that keeps no denials still announces its resets to those that do', async () => {
    const remembering = new RateLimiterFactory(new RedisStore({ client: redis.client() }));
    const forgetful = new RateLimiterFactory(
      new RedisStore({ client: redis.client(), cacheDenials: false }),
    );
    const onB = remembering.countLimiter({ key: 'announce:alice', limit: 1, period: 60 });
    const onA = forgetful.countLimiter({ key: 'announce:alice', limit: 1, period: 60 });
    expect(await onB.tryAcquire()).toBe(true);
    expect(await onB.tryAcquire()).toBe(false);
    // B now listens and answers this key's denials locally.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await onB.tryAcquire()).toBe(false);
    await onA.reset();
    expect(await eventually(() => onB.tryAcquire(), true, 1000)).toBe(true);
  });

  it('opens no listening connection once the store is closed', async () => {
    const client = redis.client();
    const store = new RedisStore({ client });
    const limiter = new RateLimiterFactory(store).countLimiter({
      key: 'late',
      limit: 1,
      period: 60,
    });
    expect(await limiter.tryAcquire()).toBe(true);
    const denied = limiter.tryAcquire();
    await store.close();
    expect(await denied).toBe(false);
    const before = await clientCount();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await clientCount()).toBe(before);
  });

  it('opens no listening connection through a client its owner has closed', async () => {
    const client = redis.client();
    await client.ping();
    const limiter = new RateLimiterFactory(new RedisStore({ client })).countLimiter({
      key: 'ended',
      limit: 1,
      period: 60,
    });
    await client.quit();
    expect(await eventually(async () => client.status, 'end')).toBe('end');
    const connected = await clientCount();
    // The decision fails (the client is closed); no connection of the store's may open.
    await expect(limiter.tryAcquire()).rejects.toThrow('Connection is closed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await clientCount()).toBe(connected);
  });
});
