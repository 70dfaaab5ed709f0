import { exitAfterPrinting, spawnChildScript } from '../helpers/child-app';
import { freePort } from '../helpers/free-port';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Time a process gets to exit once its app has closed. */
const EXIT_WITHIN_MS = 5_000;

/**
 * `app.close()` leaves no socket or timer of the library's: a process whose app served on
 * Redis (decisions, a remembered denial, a reset broadcast to every server) and then closed
 * exits by itself, with and without the admin module (its live-settings poller).
 */
describe('an app on Redis, once closed', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  describe.each(['express', 'fastify'])('%s', (platform) => {
    it.each([
      ['the module alone', '0'],
      ['with the admin module', '1'],
    ])('%s: the process exits by itself', async (_, admin) => {
      await redis.client().flushall();
      const child = spawnChildScript('closing-app.ts', {
        REDIS_URL: redis.url,
        PLATFORM: platform,
        ADMIN: admin,
      });
      const { output, outcome } = await exitAfterPrinting(child, /CLOSED/, EXIT_WITHIN_MS);
      // Allowed, denied, allowed, denied; after the reset, allowed again.
      expect(output).toMatch(/CLOSED 200 429 200 429 200\n/);
      expect(outcome).toBe('exit 0');
    });

    it('with Redis down all along (its connection retrying): the process exits by itself', async () => {
      const child = spawnChildScript('closing-app.ts', {
        REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
        PLATFORM: platform,
        ADMIN: '1',
      });
      const { output, outcome } = await exitAfterPrinting(child, /CLOSED/, EXIT_WITHIN_MS);
      // onStoreError 'allow': every request passes while the store is away.
      expect(output).toMatch(/CLOSED 200 200 200 200 200\n/);
      expect(outcome).toBe('exit 0');
    });
  });
});
