import type { Cluster, Redis, RedisOptions } from 'ioredis';

type Seed = { host?: string; port?: number } | string | number;

function seed(node: Seed, defaultPort: number): string {
  if (typeof node === 'number') return `localhost:${node}`;
  if (typeof node === 'string') return node;
  return `${node.host ?? 'localhost'}:${node.port ?? defaultPort}`;
}

/**
 * Where a connection goes, as logs name it: host:port, a socket path, the Sentinels and the
 * master's name, or a Cluster's seed nodes. Never a password.
 */
export function describeEndpoint(options: RedisOptions): string {
  if (options.path) return options.path;
  if (options.sentinels?.length) {
    const seeds = options.sentinels.map((node) => seed(node, 26379));
    return `Sentinel ${seeds.join(', ')} (master '${options.name ?? ''}')`;
  }
  return seed({ host: options.host, port: options.port }, 6379);
}

/** {@link describeEndpoint} of a client, its Cluster's seed nodes included. */
export function describeClient(client: Redis | Cluster): string {
  if (client.isCluster) {
    // ioredis keeps the seeds in a private field: read it as data, not as its API.
    const nodes = (client as unknown as { startupNodes?: Seed[] }).startupNodes ?? [];
    return `Cluster ${nodes.map((node) => seed(node, 6379)).join(', ')}`;
  }
  return describeEndpoint((client as Redis).options);
}
