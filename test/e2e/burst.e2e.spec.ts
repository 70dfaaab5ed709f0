import { burst } from '../helpers/burst';
import { ChildApp, startChildApp } from '../helpers/child-app';
import { PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/**
 * "A busy app is not a down Redis": a burst of 1,000 simultaneous requests
 * saturates the app's event loop, not Redis. The app runs in a process of its own (as in
 * production: the test's sockets must not share its event loop), on a healthy Redis with the
 * default storeTimeout and onStoreError ('allow'). Each limit admits exactly 20 of the
 * burst, and again on a second burst: no store timeout is declared for replies already
 * waiting in the socket, and the breaker never opens on the app's own lag.
 */
const REQUESTS = 1000;
const LIMIT = 20;

describe.each(PLATFORMS)('a burst of 1,000 requests on a healthy Redis (%s)', (platform) => {
  let redis: RedisServer;
  let app: ChildApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    app = await startChildApp('burst-app.ts', { REDIS_URL: redis.url, PLATFORM: platform });
  });
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  it.each(['count', 'bucket', 'log'])('/%s admits exactly the limit, twice', async (route) => {
    for (const round of [1, 2]) {
      const statuses = await burst(app.port, `/${route}?round=${round}`, REQUESTS);
      expect({ round, statuses }).toEqual({
        round,
        statuses: { 200: LIMIT, 429: REQUESTS - LIMIT },
      });
    }
  });
});

/**
 * The same with a short storeTimeout (50 ms), where a starved CPU delays Redis past the
 * batch's deadline now and then: Redis then answers "skipped", and the callers still waiting
 * get a decision sent again, never the failure policy's ('allow': all admitted).
 */
describe('a burst of 1,000 requests with storeTimeout 50 ms', () => {
  let redis: RedisServer;
  let app: ChildApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    app = await startChildApp('burst-app.ts', {
      REDIS_URL: redis.url,
      PLATFORM: 'express',
      STORE_TIMEOUT: '50',
    });
  });
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  it('/count admits exactly the limit, five times', async () => {
    for (const round of [1, 2, 3, 4, 5]) {
      const statuses = await burst(app.port, `/count?round=short-timeout-${round}`, REQUESTS);
      expect({ round, statuses }).toEqual({
        round,
        statuses: { 200: LIMIT, 429: REQUESTS - LIMIT },
      });
    }
  });
});
