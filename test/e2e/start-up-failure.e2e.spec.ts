import { spawnChildScript } from '../helpers/child-app';
import { stopProcess } from '../helpers/redis-server';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Time a process gets to exit once its start-up failed (it takes ~1 s to load the app). */
const EXIT_WITHIN_MS = 8_000;

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

  it.each([
    ['a key template syntax error', 'template', /FAILED .*BrokenTemplateController\.sms/],
    ['another provider that throws', 'provider', /FAILED a provider that cannot start/],
  ])('%s: the process exits by itself', async (_, failure, printed) => {
    const child = spawnChildScript('failing-start-app.ts', {
      REDIS_URL: redis.url,
      FAILURE: failure,
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = await new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('still running'), EXIT_WITHIN_MS);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(`exit ${code}`);
      });
    });
    await stopProcess(child, 'SIGKILL');
    expect(output).toMatch(printed);
    expect(exited).toBe('exit 0');
  });
});
