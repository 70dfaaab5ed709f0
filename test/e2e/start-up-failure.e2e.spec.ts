import { AddressInfo, createServer, Server } from 'node:net';
import { exitAfterPrinting, spawnChildScript } from '../helpers/child-app';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Time a process gets to exit once it has printed that its start-up failed. */
const EXIT_WITHIN_MS = 5_000;

/**
 * A process that catches its app's start-up error, as a script or a test does, must be able
 * to exit: the module leaves no Redis socket open (with a reachable Redis, where the
 * connection would otherwise succeed and keep the process alive).
 */
describe('an app whose start-up fails, with a live Redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  /** A port some other server holds, for an app that starts and then cannot listen. */
  let taken: Server;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

  it.each([
    ['a key template syntax error', 'template', /FAILED .*BrokenTemplateController\.sms/],
    ['another provider that throws', 'provider', /FAILED a provider that cannot start/],
    // After the app has started (bootstrap hooks have run): app.listen fails.
    ['a port already in use', 'port', /FAILED listen EADDRINUSE/],
    // The admin module's live settings are read from Redis every 500 ms.
    ['a port already in use, with the admin module', 'port', /FAILED listen EADDRINUSE/, '1'],
  ])('%s: the process exits by itself', async (_, failure, printed, admin = '0') => {
    const child = spawnChildScript('failing-start-app.ts', {
      REDIS_URL: redis.url,
      FAILURE: failure,
      ADMIN: admin,
      PORT: String((taken.address() as AddressInfo).port),
    });
    const { output, outcome } = await exitAfterPrinting(child, /FAILED/, EXIT_WITHIN_MS);
    expect(output).toMatch(printed);
    expect(outcome).toBe('exit 0');
  });
});
