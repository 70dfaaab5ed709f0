import { ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { freePort } from './free-port';
import { spawnRedis, stopProcess, waitForPing } from './redis-server';

export interface RedisSentinelSetup {
  masterName: string;
  sentinelPort: number;
  masterPort: number;
  /** With `{ replica: true }`: a replica of the master, known to the sentinel. */
  replicaPort?: number;
  stop(): Promise<void>;
}

/**
 * A master and one sentinel watching it, as real processes on free loopback ports; with
 * `replica`, also a replica that is in sync and known to the sentinel, so `SENTINEL FAILOVER`
 * can promote it.
 */
export async function startRedisSentinel({ replica = false } = {}): Promise<RedisSentinelSetup> {
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-sentinel-'));
  const processes: ChildProcess[] = [];
  const stop = async () => {
    // Sentinel first, so it does not fail over while the servers go down.
    for (const child of processes.reverse()) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const masterPort = await freePort();
    processes.push(spawnRedis(masterPort, dir));
    await waitForPing(masterPort);
    const replicaPort = replica ? await startReplica(dir, masterPort, processes) : undefined;

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
    const sentinel = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
    sentinel.on('error', () => undefined);
    processes.push(sentinel);
    await waitForPing(sentinelPort);
    if (replicaPort) await waitFor(() => replicaIsPromotable(sentinelPort));
    return { masterName: 'limiter', sentinelPort, masterPort, replicaPort, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A replica of the master, in its own folder (servers must not share a dump file), in sync. */
async function startReplica(
  dir: string,
  masterPort: number,
  processes: ChildProcess[],
): Promise<number> {
  const port = await freePort();
  const replicaDir = join(dir, 'replica');
  mkdirSync(replicaDir);
  processes.push(spawnRedis(port, replicaDir, ['--replicaof', '127.0.0.1', String(masterPort)]));
  await waitForPing(port);
  await waitFor(async () => /master_link_status:up/.test(await info(port, 'replication')));
  return port;
}

/**
 * Whether the sentinel would promote the replica: it must have the replica's INFO with a
 * working link, or `SENTINEL FAILOVER` answers NOGOODSLAVE.
 */
async function replicaIsPromotable(sentinelPort: number): Promise<boolean> {
  const client = new Redis(sentinelPort, '127.0.0.1', { retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    const replicas = (await client.call('SENTINEL', 'REPLICAS', 'limiter')) as string[][];
    return replicas.some((fields) => {
      const field = (name: string) => fields[fields.indexOf(name) + 1];
      return field('flags') === 'slave' && field('master-link-status') === 'ok';
    });
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** One INFO section, or '' while the server cannot answer yet. */
async function info(port: number, section: string): Promise<string> {
  const client = new Redis(port, '127.0.0.1', { lazyConnect: true, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.info(section);
  } catch {
    return '';
  } finally {
    client.disconnect();
  }
}

async function waitFor(ready: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('the sentinel setup did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
