import { ChildProcess, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis, { Cluster, ClusterOptions, RedisOptions } from 'ioredis';
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

const HOST = '127.0.0.1';
const BUS_PORT_OFFSET = 10_000;
/** Cluster mode; replicas sync at once instead of after the default 5 s diskless-sync delay. */
const NODE_ARGS = '--cluster-enabled yes --cluster-node-timeout 1000 --repl-diskless-sync-delay 0';

/** The helper's own connections: no reconnects or retries, so a dead node errs at once. */
const ADMIN_OPTIONS: RedisOptions = {
  retryStrategy: () => null,
  maxRetriesPerRequest: 0,
  enableReadyCheck: false,
  connectTimeout: 1000,
  commandTimeout: 2000,
};
/** A `CLUSTER SLOTS` entry: first slot, last slot, then [host, port, id] of the master. */
type SlotRange = [number, number, [string, number, ...unknown[]], ...unknown[]];

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

function redisCli(args: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('redis-cli', args.split(' '), { timeout: 30_000 }, (error, stdout, stderr) =>
      error ? reject(new Error(`redis-cli failed: ${stderr}${stdout}`)) : resolve(stdout),
    );
  });
}

/** A local Redis Cluster of real redis-server processes, owned by one test file. */
export class RedisClusterHandle {
  /** Every node; roles are refreshed after start and after each failover. */
  readonly nodes: ClusterNodeInfo[] = [];
  private readonly dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-cluster-'));
  private readonly children = new Map<number, ChildProcess>();
  private readonly admins = new Map<number, Redis>();
  private readonly clients: Cluster[] = [];
  /** Last resort if the test process exits without `stop()`: no orphaned redis-server. */
  private readonly killAll = () => this.children.forEach((child) => child.kill('SIGKILL'));

  /** @internal use {@link startRedisCluster} */
  async start(replicas: 0 | 1): Promise<void> {
    process.once('exit', this.killAll);
    const deadline = Date.now() + 30_000;
    const taken = new Set<number>();
    const ports: number[] = [];
    for (let i = 0; i < 3 * (1 + replicas); i++) ports.push(await this.startNode(taken, deadline));
    this.nodes.push(...ports.map((port) => ({ port, role: 'master' as const, alive: true })));
    const addresses = ports.map((port) => `${HOST}:${port}`).join(' ');
    await redisCli(`--cluster create ${addresses} --cluster-replicas ${replicas} --cluster-yes`);
    await until('cluster_state:ok on every node', deadline, async () => {
      for (const port of ports) if (!(await this.clusterOk(port))) return false;
      await this.refreshRoles(ports[0]);
      const replicaPorts = this.nodes.filter((n) => n.role === 'replica').map((n) => n.port);
      const linked = await Promise.all(replicaPorts.map((port) => this.replicaLinked(port)));
      return this.masterPorts().length === 3 && linked.every(Boolean);
    });
  }

  /** Ports of the live masters. */
  masterPorts(): number[] {
    return this.nodes.filter((n) => n.alive && n.role === 'master').map((n) => n.port);
  }

  /** A new ioredis Cluster on the live masters; closed by `stop()`. */
  client(options: ClusterOptions = {}): Cluster {
    const seeds = this.masterPorts().map((port) => ({ host: HOST, port }));
    // Disconnecting a connection whose socket already closed (one to a killed node) leaves
    // ioredis's disconnect timer behind; short, it does not keep Jest from exiting.
    const redisOptions = { disconnectTimeout: 100, ...options.redisOptions };
    const client = new Cluster(seeds, { ...options, redisOptions });
    client.on('error', () => undefined);
    this.clients.push(client);
    return client;
  }

  /** One command on one node, on the helper's own connection (not a cluster client). */
  exec(port: number, command: string, ...args: (string | number)[]): Promise<unknown> {
    let admin = this.admins.get(port);
    if (!admin || admin.status === 'end') {
      admin = new Redis(port, HOST, ADMIN_OPTIONS);
      admin.on('error', () => undefined);
      this.admins.set(port, admin);
    }
    return admin.call(command, ...args);
  }

  /** Port of the master that owns the slot of `key`. */
  async masterForKey(key: string): Promise<number> {
    const [viewPort] = this.masterPorts();
    const slot = Number(await this.exec(viewPort, 'CLUSTER', 'KEYSLOT', key));
    const ranges = await this.slotRanges(viewPort);
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (!range) throw new Error(`Redis Cluster: no master serves slot ${slot}`);
    return Number(range[2][1]);
  }

  /** Keys matching `pattern` on every live master (SCAN), with the port holding each. */
  async keys(pattern: string): Promise<{ key: string; port: number }[]> {
    const found: { key: string; port: number }[] = [];
    for (const port of this.masterPorts()) {
      let cursor = '0';
      do {
        const reply = await this.exec(port, 'SCAN', cursor, 'MATCH', pattern, 'COUNT', 1000);
        const [next, keys] = reply as [string, string[]];
        found.push(...keys.map((key) => ({ key, port })));
        cursor = next;
      } while (cursor !== '0');
    }
    return found;
  }

  /** SIGKILLs a master, as a crash would. */
  async killMaster(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node?.alive || node.role !== 'master') throw new Error(`${port} is no live master`);
    this.admins.get(port)?.disconnect();
    this.admins.delete(port);
    await stopProcess(this.children.get(port), 'SIGKILL');
    node.alive = false;
  }

  /** Polls until a replica of the dead master is promoted and every survivor is ok; its port. */
  async waitForFailover(oldMasterPort: number, timeoutMs = 20_000): Promise<number> {
    const candidates = this.nodes.filter((n) => n.alive && n.masterPort === oldMasterPort);
    if (candidates.length === 0) throw new Error(`Redis Cluster: ${oldMasterPort} has no replica`);
    let promoted: number | undefined;
    await until(`a replica of ${oldMasterPort} to take over`, Date.now() + timeoutMs, async () => {
      for (const { port } of candidates) {
        if (((await this.exec(port, 'ROLE')) as string[])[0] === 'master') promoted = port;
      }
      if (promoted === undefined) return false;
      for (const { port } of this.nodes.filter((n) => n.alive)) {
        if (!(await this.clusterOk(port))) return false;
        const ranges = await this.slotRanges(port);
        if (ranges.some((range) => Number(range[2][1]) === oldMasterPort)) return false;
      }
      return true;
    });
    await this.refreshRoles(promoted as number);
    return promoted as number;
  }

  /** Kills every node, closes every connection and removes the data directory. */
  async stop(): Promise<void> {
    process.removeListener('exit', this.killAll);
    for (const client of this.clients) client.disconnect();
    // An ended connection has no socket left to close (disconnecting it leaves a timer behind).
    for (const admin of this.admins.values()) if (admin.status !== 'end') admin.disconnect();
    await Promise.all([...this.children.values()].map((child) => stopProcess(child, 'SIGKILL')));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async startNode(taken: Set<number>, deadline: number): Promise<number> {
    for (;;) {
      const port = await freeNodePort(taken);
      const config = ['--cluster-config-file', join(this.dir, `nodes-${port}.conf`)];
      const child = spawnRedis(port, this.dir, [...NODE_ARGS.split(' '), ...config]);
      this.children.set(port, child);
      // A port taken in the meantime makes redis-server exit at once: try another one. The
      // process id tells our server from another one answering on that port.
      const exited = () => child.exitCode !== null;
      const ours = async () =>
        `${await this.exec(port, 'INFO', 'server')}`.includes(`process_id:${child.pid}\r`);
      await until(`node ${port} to start`, deadline, async () => exited() || (await ours()));
      if (!exited()) return port;
      this.children.delete(port);
    }
  }

  /** Roles as `viewPort` sees them; CLUSTER NODES rows: `<id> <ip:port@bus> <flags> <master>`. */
  private async refreshRoles(viewPort: number): Promise<void> {
    const reply = String(await this.exec(viewPort, 'CLUSTER', 'NODES'));
    const lines = reply.trim().split('\n');
    const rows = lines.map((line) => line.split(' '));
    const portOf = (address: string) => Number(address.split(/[:@]/)[1]);
    const portById = new Map(rows.map(([id, address]) => [id, portOf(address)]));
    for (const [, address, flags, masterId] of rows) {
      const node = this.nodes.find((n) => n.port === portOf(address));
      if (!node) continue;
      node.role = flags.split(',').includes('master') ? 'master' : 'replica';
      node.masterPort = node.role === 'replica' ? portById.get(masterId) : undefined;
    }
  }

  private async slotRanges(port: number): Promise<SlotRange[]> {
    return (await this.exec(port, 'CLUSTER', 'SLOTS')) as SlotRange[];
  }

  private async clusterOk(port: number): Promise<boolean> {
    return String(await this.exec(port, 'CLUSTER', 'INFO')).includes('cluster_state:ok');
  }

  private async replicaLinked(port: number): Promise<boolean> {
    return String(await this.exec(port, 'INFO', 'replication')).includes('master_link_status:up');
  }
}

/**
 * Starts 3 masters (and one replica each with `replicas: 1`) on free loopback ports, forms
 * a cluster with `redis-cli --cluster create` and waits, by polling, until it serves.
 */
export async function startRedisCluster(
  options: { replicas?: 0 | 1 } = {},
): Promise<RedisClusterHandle> {
  const cluster = new RedisClusterHandle();
  try {
    await cluster.start(options.replicas ?? 0);
    return cluster;
  } catch (error) {
    await cluster.stop();
    throw error;
  }
}
