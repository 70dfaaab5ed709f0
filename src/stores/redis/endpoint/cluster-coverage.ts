import type { Cluster, Redis } from 'ioredis';

/** Every slot of a Redis Cluster. */
const SLOTS = 16_384;
/** ioredis's states of a connection not yet ready that has not failed. */
const OPENING = new Set(['wait', 'connecting', 'connect']);

/** `from-to` ranges of sorted slots, as logs name them. */
function ranges(slots: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < slots.length;) {
    let j = i;
    while (j + 1 < slots.length && slots[j + 1] === slots[j] + 1) j++;
    parts.push(i === j ? `${slots[i]}` : `${slots[i]}-${slots[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

/** `CLUSTER INFO`'s state on `node`: undefined where the command is refused (a proxy, an ACL). */
async function clusterState(node: Redis): Promise<string | undefined> {
  try {
    const info = String(await node.call('CLUSTER', 'INFO'));
    return /cluster_state:(\w+)/.exec(info)?.[1];
  } catch (error) {
    if ((error as Error | undefined)?.name === 'ReplyError') return undefined;
    throw error;
  }
}

/**
 * Whether every slot of a Cluster can be decided now: each slot has a master, the client is
 * connected to it, and that master says the cluster is ok (a Cluster that lost a master
 * refuses every key, CLUSTERDOWN, on the nodes still up). One client's connections alone are
 * not enough: decisions for the slots of a master that is gone fail, and follow
 * `onStoreError`, while the others still answer.
 */
export class ClusterCoverage {
  /** The last connection error of each node, by `host:port`, until it is ready again. */
  private readonly errors = new Map<string, string>();
  private readonly onNodeError = (error: Error, key: string): void => {
    if (error?.name !== 'ReplyError') this.errors.set(key, error.message.split('\n')[0]);
  };

  constructor(private readonly cluster: Cluster) {}

  start(): void {
    this.cluster.on('node error', this.onNodeError);
  }

  stop(): void {
    this.cluster.removeListener('node error', this.onNodeError);
  }

  /** Why some slots cannot be decided, naming each node and its slots; undefined when all can. */
  async uncovered(): Promise<string | undefined> {
    const byMaster = new Map<string, number[]>();
    const orphans: number[] = [];
    for (let slot = 0; slot < SLOTS; slot++) {
      const master = this.cluster.slots[slot]?.[0];
      if (master === undefined) {
        orphans.push(slot);
        continue;
      }
      let slots = byMaster.get(master);
      if (!slots) byMaster.set(master, (slots = []));
      slots.push(slot);
    }
    // Before the client has read the slot table there is nothing to name yet.
    if (byMaster.size === 0) return undefined;
    const connected = new Map<string, Redis>();
    for (const node of this.cluster.nodes('all')) {
      connected.set(`${node.options.host}:${node.options.port}`, node);
    }
    const causes = await Promise.all(
      [...byMaster].map(async ([key, slots]) => {
        const cause = await this.nodeCause(key, connected.get(key));
        return cause && `slots ${ranges(slots)} at ${key}: ${cause}`;
      }),
    );
    if (orphans.length > 0) causes.unshift(`slots ${ranges(orphans)}: no master serves them`);
    const found = causes.filter(Boolean);
    return found.length > 0 ? `Redis Cluster cannot decide ${found.join('; ')}` : undefined;
  }

  private async nodeCause(key: string, node: Redis | undefined): Promise<string | undefined> {
    const lastError = this.errors.get(key);
    // A node still opening its first connection (the client connects lazily) is asked: its
    // command waits for the connection. Only a failed or closed one is not connected.
    const opening = lastError === undefined && OPENING.has(node?.status ?? '');
    if (!node || (node.status !== 'ready' && !opening)) {
      return `not connected (${lastError ?? node?.status ?? 'no connection'})`;
    }
    this.errors.delete(key);
    try {
      const state = await clusterState(node);
      return state === undefined || state === 'ok' ? undefined : `cluster_state:${state}`;
    } catch (error) {
      // A connection ioredis closed while it settles the slot table, with no error heard from
      // the node, is not an outage: a node that is gone reports its error ('node error').
      const message = (error as Error).message.split('\n')[0];
      return /Connection is closed/.test(message) && !this.errors.has(key) ? undefined : message;
    }
  }
}
