import { ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { allCommandsRun } from '../helpers/command-stats';
import { exitAfterPrinting, printed, spawnChildScript } from '../helpers/child-app';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Three app servers, one key, each leasing its permits (`lease: 100`). */
describe('leases across app processes', () => {
  let redis: RedisServer;
  let admin: Redis;
  beforeAll(async () => {
    redis = await startRedisServer();
    admin = redis.client();
  });
  afterAll(() => redis.stop());

  function servers(count: number, env: Record<string, string>) {
    return Array.from({ length: count }, () =>
      spawnChildScript('lease-attempts.ts', {
        REDIS_URL: redis.url,
        LEASE: '100',
        START_ON_SIGNAL: '1',
        ...env,
      }),
    );
  }

  /** Starts the servers together once every one has loaded and connected (seconds when busy). */
  async function startTogether(children: ChildProcess[]): Promise<void> {
    await Promise.all(children.map((child) => printed(child, /^READY$/m)));
    for (const child of children) child.kill('SIGUSR2');
  }

  it('3 servers, 4,000 attempts each on a limit of 6,000: 5,700 to 6,000 admitted, at most 0.05 Redis commands per decision', async () => {
    await admin.config('RESETSTAT');
    const children = servers(3, { KEY: 'shared', LIMIT: '6000', ATTEMPTS: '4000' });
    const exits = children.map((child) => exitAfterPrinting(child, /CLOSED/, 10_000));
    await startTogether(children);
    const outcomes = await Promise.all(exits);
    const admitted = outcomes
      .map(({ output }) => Number(/ALLOWED (\d+)/.exec(output)?.[1] ?? NaN))
      .reduce((sum, n) => sum + n, 0);
    expect(outcomes.map(({ outcome }) => outcome)).toEqual(['exit 0', 'exit 0', 'exit 0']);
    expect(admitted).toBeGreaterThanOrEqual(5_700);
    expect(admitted).toBeLessThanOrEqual(6_000);
    // What Redis counted is what was admitted: the unused leases went back on close.
    expect(Number(await admin.get('countLimit:shared'))).toBe(admitted);
    expect((await allCommandsRun(admin)) / 12_000).toBeLessThanOrEqual(0.05);
  }, 60_000);

  it('a server that dies strands at most its lease until the window ends', async () => {
    const [child] = servers(1, { KEY: 'dies', LIMIT: '1000', ATTEMPTS: '10', HANG: '1' });
    const exit = exitAfterPrinting(child, /HANGING/, 0);
    await startTogether([child]);
    const { output } = await exit;
    expect(/ALLOWED (\d+)/.exec(output)?.[1]).toBe('10');
    // Killed with 90 permits of its lease unused: they stay taken, and no more.
    expect(Number(await admin.get('countLimit:dies'))).toBe(100);
    expect(await admin.pttl('countLimit:dies')).toBeGreaterThan(590_000);
  }, 60_000);
});
