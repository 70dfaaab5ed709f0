// The Redis under test, a single server or a 3-master cluster, started by the test helpers.
import type { Cluster, Redis } from 'ioredis';
import { startRedisCluster } from '../test/helpers/redis-cluster';
import { startRedisServer } from '../test/helpers/redis-server';

export interface BenchRedis {
  kind: 'standalone' | 'cluster';
  /** A URL of the server (of one master, for a cluster). */
  url: string;
  /** A new client for one contender; closed by `stop()`. */
  client(autoPipelining: boolean): Redis | Cluster;
  /** One command on every master: the INFO figures below are sums over the masters. */
  onEachMaster(command: string, ...args: (string | number)[]): Promise<unknown[]>;
  stop(): Promise<void>;
}

export async function standaloneRedis(): Promise<BenchRedis> {
  const server = await startRedisServer();
  const admin = server.client();
  return {
    kind: 'standalone',
    url: server.url,
    client: (autoPipelining) =>
      server.client({ enableAutoPipelining: autoPipelining, maxRetriesPerRequest: 1 }),
    onEachMaster: async (command, ...args) => [await admin.call(command, ...args)],
    stop: () => server.stop(),
  };
}

export async function clusterRedis(): Promise<BenchRedis> {
  const cluster = await startRedisCluster();
  return {
    kind: 'cluster',
    url: `redis://127.0.0.1:${cluster.masterPorts()[0]}`,
    client: (autoPipelining) =>
      cluster.client({
        enableAutoPipelining: autoPipelining,
        redisOptions: { maxRetriesPerRequest: 1 },
      }),
    onEachMaster: (command, ...args) =>
      Promise.all(cluster.masterPorts().map((port) => cluster.exec(port, command, ...args))),
    stop: () => cluster.stop(),
  };
}

/** CPU seconds (user + system) the masters have used so far: INFO cpu. */
export async function redisCpuSeconds(redis: BenchRedis): Promise<number> {
  const infos = await redis.onEachMaster('INFO', 'cpu');
  const field = (text: string, name: string) =>
    Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1]);
  return infos
    .map(String)
    .reduce((sum, info) => sum + field(info, 'used_cpu_user') + field(info, 'used_cpu_sys'), 0);
}

const SCRIPTS = new Set(['eval', 'evalsha', 'eval_ro', 'evalsha_ro', 'fcall', 'fcall_ro']);
/** The bench's own commands, left out of the counts. */
const OURS = new Set([
  'info',
  'flushall',
  'memory',
  'dbsize',
  'object',
  'cluster',
  'ping',
  'function|load',
]);

export interface CommandCounts {
  /** Every command Redis ran, those a script runs included (INFO commandstats). */
  all: number;
  /** Script calls: the contenders' round trips. */
  scripts: number;
}

export async function commandCounts(redis: BenchRedis): Promise<CommandCounts> {
  const counts = { all: 0, scripts: 0 };
  for (const info of await redis.onEachMaster('INFO', 'commandstats')) {
    for (const [, name, calls] of String(info).matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (OURS.has(name) || name.startsWith('config') || name.startsWith('client')) continue;
      counts.all += Number(calls);
      if (SCRIPTS.has(name)) counts.scripts += Number(calls);
    }
  }
  return counts;
}

export const countsSince = (before: CommandCounts, after: CommandCounts): CommandCounts => ({
  all: after.all - before.all,
  scripts: after.scripts - before.scripts,
});
