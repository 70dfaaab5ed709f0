import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { spawnRedis, stopProcess, waitForPing } from './redis-server';

export interface RedisSentinelSetup {
  masterName: string;
  sentinelPort: number;
  masterPort: number;
  stop(): Promise<void>;
}

/** A master and one sentinel watching it, as real processes on free loopback ports. */
export async function startRedisSentinel(): Promise<RedisSentinelSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-sentinel-'));
  const masterPort = await freePort();
  const master = spawnRedis(masterPort, dir);
  await waitForPing(masterPort);

  const sentinelPort = await freePort();
  const config = join(dir, 'sentinel.conf');
  // Sentinel rewrites its config file, so it gets one of its own.
  writeFileSync(
    config,
    [
      `port ${sentinelPort}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor limiter 127.0.0.1 ${masterPort} 1`,
      'sentinel down-after-milliseconds limiter 1000',
      '',
    ].join('\n'),
  );
  const sentinel: ChildProcess = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
  sentinel.on('error', () => undefined);
  await waitForPing(sentinelPort);

  return {
    masterName: 'limiter',
    sentinelPort,
    masterPort,
    async stop() {
      await stopProcess(sentinel);
      await stopProcess(master);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
