import { ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis, { Cluster, ClusterOptions } from 'ioredis';
import { freePort } from './free-port';
import { spawnRedis, stopProcess } from './redis-server';

/** One redis-server of the cluster, as last seen by `CLUSTER NODES`. */
export interface ClusterNodeInfo {
  port: number;
  role: 'master' | 'replica';
  /** For a replica: the port of the master it replicates. */
  masterPort?: number;
  /** False once the node was killed. */
  alive: boolean;
}

/** A local Redis Cluster of real redis-server processes, owned by one test file. */
export interface RedisClusterHandle {
  /** Every node; roles are refreshed after start and after each failover. */
  readonly nodes: readonly ClusterNodeInfo[];
  /** Ports of the live masters. */
  masterPorts(): number[];
  /** A new ioredis Cluster on the live masters; closed by `stop()`. */
  client(options?: ClusterOptions): Cluster;
  /** One command on one node, on the helper's own connection (not the cluster client). */
  exec(port: number, command: string, ...args: (string | number)[]): Promise<unknown>;
  /** Port of the master that owns the slot of `key`. */
  masterForKey(key: string): Promise<number>;
  /** Keys matching `pattern` on every live master (SCAN), with the port holding each. */
  keys(pattern: string): Promise<{ key: string; port: number }[]>;
  /** SIGKILLs a master, as a crash would. */
  killMaster(port: number): Promise<void>;
  /** Waits until a replica of the dead master is promoted and every survivor is ok; its port. */
  waitForFailover(oldMasterPort: number, timeoutMs?: number): Promise<number>;
  /** Kills every node and removes the data directory. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const BUS_PORT_OFFSET = 10_000;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too, and not in `taken`. */
async function freeNodePort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = await freePort();
    const bus = port + BUS_PORT_OFFSET;
    if (bus > 65_535 || taken.has(port) || taken.has(bus) || !(await portIsFree(bus))) continue;
    taken.add(port).add(bus);
    return port;
  }
  throw new Error('found no free port whose cluster bus port (port + 10000) is free too');
}

/** Polls `check` every 50 ms until it resolves true; errors count as "not yet". */
async function until(what: string, deadline: number, check: () => Promise<boolean>): Promise<void> {
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: timed out waiting for ${what}`);
    await pause(50);
  }
}

function redisCli(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', args, { timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`redis-cli ${args.join(' ')} failed: ${stderr}${stdout}`)) : resolve(stdout),
    );
  });
}

/** Starts 3 masters (and one replica each with `replicas: 1`) and forms a cluster. */
export async function startRedisCluster(options: { replicas?: 0 | 1 } = {}): Promise<RedisClusterHandle> {
  const replicas = options.replicas ?? 0;
  const dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-cluster-'));
  const children = new Map<number, ChildProcess>();
  const admins = new Map<number, Redis>();
  const clients: Cluster[] = [];
  const nodes: ClusterNodeInfo[] = [];
  const killAll = () => children.forEach((child) => child.kill('SIGKILL'));
  process.once('exit', killAll);

  const admin = (port: number): Redis => {
    const existing = admins.get(port);
    if (existing && existing.status !== 'end') return existing;
    const connection = new Redis(port, HOST, {
      retryStrategy: () => null,
      enableReadyCheck: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: 2000,
    });
    connection.on('error', () => undefined);
    admins.set(port, connection);
    return connection;
  };
  const exec = (port: number, command: string, ...args: (string | number)[]) =>
    admin(port).call(command, ...args);
  const live = () => nodes.filter((node) => node.alive);
  const masterPorts = () => live().filter((n) => n.role === 'master').map((n) => n.port);

  async function startNode(taken: Set<number>, deadline: number): Promise<number> {
    for (;;) {
      const port = await freeNodePort(taken);
      const child = spawnRedis(port, dir, ['--cluster-enabled', 'yes', '--cluster-config-file',
        join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '1000',
        // Replicas sync at once instead of after the default 5 s diskless-sync delay.
        '--repl-diskless-sync-delay', '0']);
      children.set(port, child);
      // A port taken in the meantime makes redis-server exit at once: try another one.
      await until(`node ${port} to answer PING`, deadline, async () =>
        child.exitCode !== null || (await exec(port, 'PING')) === 'PONG');
      if (child.exitCode === null) return port;
      children.delete(port);
    }
  }

  /** Roles as seen by `viewPort` in CLUSTER NODES. */
  async function refreshRoles(viewPort: number): Promise<void> {
    const lines = String(await exec(viewPort, 'CLUSTER', 'NODES')).trim().split('\n');
    const rows = lines.map((line) => line.split(' '));
    const portOf = new Map(rows.map(([id, address]) => [id, Number(address.split(/[:@]/)[1])]));
    for (const [, address, flags, masterId] of rows) {
      const node = nodes.find((n) => n.port === Number(address.split(/[:@]/)[1]));
      if (!node) continue;
      node.role = flags.split(',').includes('master') ? 'master' : 'replica';
      node.masterPort = node.role === 'replica' ? portOf.get(masterId) : undefined;
    }
  }

  const clusterOk = async (port: number) =>
    String(await exec(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok');
  const replicaLinked = async (port: number) =>
    String(await exec(port, 'INFO', 'replication')).includes('master_link_status:up');

  const handle: RedisClusterHandle = {
    nodes,
    masterPorts,
    exec,
    client(clientOptions: ClusterOptions = {}) {
      const client = new Cluster(masterPorts().map((port) => ({ host: HOST, port })), clientOptions);
      client.on('error', () => undefined);
      clients.push(client);
      return client;
    },
    async masterForKey(key: string) {
      const [viewPort] = masterPorts();
      const slot = Number(await exec(viewPort, 'CLUSTER', 'KEYSLOT', key));
      const ranges = (await exec(viewPort, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`Redis Cluster: no master serves slot ${slot}`);
      return Number(range[2][1]);
    },
    async keys(pattern: string) {
      const found: { key: string; port: number }[] = [];
      for (const port of masterPorts()) {
        let cursor = '0';
        do {
          const reply = (await exec(port, 'SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000)) as [string, string[]];
          cursor = reply[0];
          found.push(...reply[1].map((key) => ({ key, port })));
        } while (cursor !== '0');
      }
      return found;
    },
    async killMaster(port: number) {
      const node = nodes.find((n) => n.port === port);
      if (!node?.alive || node.role !== 'master') throw new Error(`Redis Cluster: ${port} is no live master`);
      admins.get(port)?.disconnect();
      admins.delete(port);
      await stopProcess(children.get(port), 'SIGKILL');
      node.alive = false;
    },
    async waitForFailover(oldMasterPort: number, timeoutMs = 20_000) {
      const candidates = live().filter((n) => n.masterPort === oldMasterPort);
      if (candidates.length === 0) throw new Error(`Redis Cluster: ${oldMasterPort} has no replica`);
      let promoted: number | undefined;
      await until(`a replica of ${oldMasterPort} to take over`, Date.now() + timeoutMs, async () => {
        for (const { port } of candidates) {
          if (((await exec(port, 'ROLE')) as string[])[0] === 'master') promoted = port;
        }
        if (promoted === undefined) return false;
        for (const { port } of live()) {
          if (!(await clusterOk(port))) return false;
          const ranges = (await exec(port, 'CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
          if (ranges.some((range) => Number(range[2][1]) === oldMasterPort)) return false;
        }
        return true;
      });
      await refreshRoles(promoted as number);
      return promoted as number;
    },
    async stop() {
      process.removeListener('exit', killAll);
      for (const client of clients) client.disconnect();
      for (const connection of admins.values()) if (connection.status !== 'end') connection.disconnect();
      await Promise.all([...children.values()].map((child) => stopProcess(child, 'SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    const deadline = Date.now() + 30_000;
    const taken = new Set<number>();
    const ports: number[] = [];
    for (let i = 0; i < 3 * (1 + replicas); i++) ports.push(await startNode(taken, deadline));
    nodes.push(...ports.map((port): ClusterNodeInfo => ({ port, role: 'master', alive: true })));
    await redisCli(['--cluster', 'create', ...ports.map((port) => `${HOST}:${port}`),
      '--cluster-replicas', String(replicas), '--cluster-yes']);
    await until('cluster_state:ok on every node', deadline, async () => {
      for (const port of ports) if (!(await clusterOk(port))) return false;
      await refreshRoles(ports[0]);
      const linked = nodes.filter((n) => n.role === 'replica').map((n) => replicaLinked(n.port));
      return masterPorts().length === 3 && (await Promise.all(linked)).every(Boolean);
    });
    return handle;
  } catch (error) {
    await handle.stop();
    throw error;
  }
}
