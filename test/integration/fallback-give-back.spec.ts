import { Logger } from '@nestjs/common';
import Redis from 'ioredis';
import { RateLimiterFactory, RedisStore } from '../../src';
import { FailurePolicyStore } from '../../src/stores/failure/failure-policy.store';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * Under onStoreError 'fallback', what the in-memory insurance store handed out during an
 * outage is given back to memory, never to Redis, which never counted it: Redis keeps the
 * count of what it decided, and memory's slots are freed.
 */
/**
 * A frozen Redis is told by this timeout; a call to a live one on a starved machine must not be
 * (a refund timed out would go to memory).
 */
const STORE_TIMEOUT_MS = 1000;

describe("refunds and releases under onStoreError 'fallback'", () => {
  let server: RedisServer;
  let admin: Redis;
  let store: RedisStore;
  let factory: RateLimiterFactory;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = server.client();
    store = new RedisStore({ client: server.client() });
    const logger = new Logger('test');
    logger.warn = () => undefined;
    logger.log = () => undefined;
    factory = new RateLimiterFactory(
      new FailurePolicyStore(store, 'fallback', STORE_TIMEOUT_MS, logger),
    );
  });
  afterAll(async () => {
    server.thaw();
    await store.close();
    await server.stop();
  });

  /** Resumes Redis and waits until decisions reach it again (the breaker has closed). */
  async function resume(): Promise<void> {
    server.thaw();
    const probe = factory.countLimiter({ key: 'probe', limit: 1e6, period: 60 });
    const before = Number(await admin.get('countLimit:probe'));
    const deadline = Date.now() + 5000;
    while (Number(await admin.get('countLimit:probe')) === before && Date.now() < deadline) {
      await probe.tryAcquire();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('a refund of permits taken in memory leaves the Redis counter as Redis counted it', async () => {
    const limiter = factory.countLimiter({ key: 'login:alice', limit: 5, period: 60 });
    for (let i = 0; i < 3; i++) expect(await limiter.tryAcquire()).toBe(true);
    expect(await admin.get('countLimit:login:alice')).toBe('3');

    server.freeze();
    expect([await limiter.tryAcquire(), await limiter.tryAcquire()]).toEqual([true, true]);
    await resume();

    await limiter.refund();
    await limiter.refund();
    expect(await admin.get('countLimit:login:alice')).toBe('3');
    // Memory's permits are all given back: the next refund is Redis's own.
    await limiter.refund();
    expect(await admin.get('countLimit:login:alice')).toBe('2');
  });

  it('a concurrency slot taken in memory is released in memory', async () => {
    const limiter = factory.concurrencyLimiter({ key: 'export', max: 1, lease: 60 });
    server.freeze();
    const slot = await limiter.tryAcquire();
    expect(slot).not.toBeNull();
    await resume();
    await slot!.release();

    server.freeze();
    // Memory has its slot back: another outage finds it free.
    const next = await limiter.tryAcquire();
    expect(next === null ? 'denied' : 'allowed').toBe('allowed');
    await resume();
    await next!.release();
  });
});
