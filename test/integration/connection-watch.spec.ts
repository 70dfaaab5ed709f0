import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChildProcess } from 'node:child_process';
import { Logger } from '@nestjs/common';
import Redis, { Cluster } from 'ioredis';
import { ConnectionWatch } from '../../src/stores/redis/endpoint/connection-watch';
import { CaptureLogger } from '../helpers/capture-logger';
import { eventually } from '../helpers/eventually';
import { freePort } from '../helpers/free-port';
import { spawnRedis, stopProcess, waitForPing } from '../helpers/redis-server';

const INTERVAL_MS = 300;

/** A Nest Logger whose lines a CaptureLogger keeps. */
function captured(): { logger: Logger; lines: CaptureLogger } {
  const lines = new CaptureLogger();
  const logger = new Logger('RateLimiter');
  Object.assign(logger, {
    log: (message: string) => lines.log(message),
    warn: (message: string) => lines.warn(message),
    error: (message: string) => lines.error(message),
  });
  return { logger, lines };
}

/** The first line a watch of `client` logs once it tries to connect; closes the client. */
async function firstLineFor(client: Redis | Cluster): Promise<string | undefined> {
  const { logger, lines } = captured();
  const watch = new ConnectionWatch(client, logger, INTERVAL_MS);
  watch.start();
  client.connect().catch(() => undefined);
  await eventually(async () => lines.lines.length, 1);
  watch.stop();
  client.disconnect();
  return lines.lines[0]?.message;
}

describe('an unreachable Redis is named in the log, again while it lasts, and when back', () => {
  let redis: ChildProcess | undefined;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-watch-'));
  });
  afterAll(async () => {
    await stopProcess(redis);
    rmSync(dir, { recursive: true, force: true });
  });

  it('host:port and the cause, every interval (not per command), then back', async () => {
    const port = await freePort();
    const client = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      retryStrategy: () => 50,
      maxRetriesPerRequest: 0,
    });
    const { logger, lines } = captured();
    const watch = new ConnectionWatch(client, logger, INTERVAL_MS);
    watch.start();
    const startedAt = Date.now();
    client.connect().catch(() => undefined);
    // Commands while it is down log nothing more: only the interval does.
    for (let i = 0; i < 20; i++) await client.ping().catch(() => undefined);
    const still =
      /^Redis at 127\.0\.0\.1:\d+ is still unreachable after \d+ s \(connect ECONNREFUSED/;
    expect(await eventually(async () => lines.count('warn', still), 3, 3_000)).toBe(3);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(3 * INTERVAL_MS - 50);
    expect(lines.lines[0]).toEqual({
      level: 'warn',
      message: `Redis at 127.0.0.1:${port} is unreachable (connect ECONNREFUSED 127.0.0.1:${port})`,
    });
    expect(lines.count('warn', /unreachable/)).toBe(4);
    expect(watch.outage).toBe(
      `Redis at 127.0.0.1:${port} is unreachable (connect ECONNREFUSED 127.0.0.1:${port})`,
    );

    redis = spawnRedis(port, dir);
    await waitForPing(port);
    const back = new RegExp(`^Redis at 127\\.0\\.0\\.1:${port} is back after \\d+ s unreachable$`);
    expect(await eventually(async () => lines.count('log', back), 1, 3_000)).toBe(1);
    expect(watch.outage).toBeUndefined();
    const warned = lines.count('warn', /unreachable/);
    await new Promise((resolve) => setTimeout(resolve, 2 * INTERVAL_MS));
    expect(lines.count('warn', /unreachable/)).toBe(warned);
    watch.stop();
    client.disconnect();
  });

  it('a Sentinel client is named by its Sentinels and master', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const client = new Redis({
      sentinels: [
        { host: '127.0.0.1', port: a },
        { host: '127.0.0.1', port: b },
      ],
      name: 'mymaster',
      lazyConnect: true,
      sentinelRetryStrategy: () => null,
    });
    expect(await firstLineFor(client)).toMatch(
      new RegExp(
        `^Redis at Sentinel 127\\.0\\.0\\.1:${a}, 127\\.0\\.0\\.1:${b} \\(master 'mymaster'\\) is unreachable \\(All sentinels are unreachable`,
      ),
    );
  });

  it('a Cluster client is named by its seed nodes', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const client = new Cluster(
      [
        { host: '127.0.0.1', port: a },
        { host: '127.0.0.1', port: b },
      ],
      { lazyConnect: true, clusterRetryStrategy: () => null },
    );
    expect(await firstLineFor(client)).toMatch(
      new RegExp(
        `^Redis at Cluster 127\\.0\\.0\\.1:${a}, 127\\.0\\.0\\.1:${b} is unreachable \\(.+\\)$`,
      ),
    );
  });
});
