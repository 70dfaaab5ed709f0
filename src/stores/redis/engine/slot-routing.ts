import type { Cluster, Redis } from 'ioredis';
import type { EngineEntry } from './entry';
import { clusterSlot } from './cluster-slot';

/** The Cluster node that serves `key` (its address), '' for a standalone or Sentinel client. */
export function nodeOf(client: Redis | Cluster, keyPrefix: string, key: string): string {
  return client.isCluster
    ? ((client as Cluster).slots[clusterSlot(keyPrefix + key)]?.[0] ?? '')
    : '';
}

/** The entries by hash slot, each slot's in their order. */
export function bySlot(
  entries: readonly EngineEntry[],
  keyPrefix: string,
): Map<number, EngineEntry[]> {
  const slots = new Map<number, EngineEntry[]>();
  for (const entry of entries) {
    const slot = clusterSlot(keyPrefix + entry.key);
    const group = slots.get(slot);
    if (group) group.push(entry);
    else slots.set(slot, [entry]);
  }
  return slots;
}

/** Each slot's entries by the node that serves the slot: one call per slot, per node. */
export function byNode(
  cluster: Cluster,
  slots: Map<number, EngineEntry[]>,
): Map<string, EngineEntry[][]> {
  const nodes = new Map<string, EngineEntry[][]>();
  for (const [slot, group] of slots) {
    const node = cluster.slots[slot]?.[0] ?? `slot ${slot}`;
    const calls = nodes.get(node);
    if (calls) calls.push(group);
    else nodes.set(node, [group]);
  }
  return nodes;
}
