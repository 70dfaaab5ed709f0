import type { DecisionGroup } from '../../../contracts/decision-group';

/** What grouping reads of a batch's entry (client.ts's EngineEntry). */
interface GroupedEntry {
  key: string;
  group?: DecisionGroup;
  withdraw(): void;
}

/**
 * Where each complete group starts in a batch, and its size: the members of a group that
 * are all in the batch, one after another, with distinct keys. A group found otherwise
 * (split, or interleaved with other entries) is sent as plain entries, and its caller gives
 * back what they took.
 */
export function groupStarts(entries: readonly GroupedEntry[]): Map<number, number> {
  const starts = new Map<number, number>();
  let i = 0;
  while (i < entries.length) {
    const group = entries[i].group;
    if (!group) {
      i++;
      continue;
    }
    let end = i;
    const keys = new Set<string>();
    while (end < entries.length && entries[end].group === group && !keys.has(entries[end].key)) {
      keys.add(entries[end].key);
      end++;
    }
    if (end - i === group.size) starts.set(i, group.size);
    i = end;
  }
  return starts;
}

/**
 * The entries still to send: a group member added before another member of its group was
 * answered denied locally (the denial cache) is withdrawn, so it takes nothing.
 */
export function withoutWithdrawn<E extends GroupedEntry>(entries: E[]): E[] {
  if (!entries.some((entry) => entry.group?.deniedLocally)) return entries;
  return entries.filter((entry) => {
    if (!entry.group?.deniedLocally) return true;
    entry.withdraw();
    return false;
  });
}

/**
 * The entries with each group's members moved together, where its first member stands
 * (entries come sorted by slot, and a group's keys are in several); the others keep their
 * order.
 */
export function groupsTogether<E extends GroupedEntry>(entries: E[]): E[] {
  if (!entries.some((entry) => entry.group)) return entries;
  const byGroup = new Map<DecisionGroup, E[]>();
  for (const entry of entries) {
    if (!entry.group) continue;
    const members = byGroup.get(entry.group);
    if (members) members.push(entry);
    else byGroup.set(entry.group, [entry]);
  }
  const ordered: E[] = [];
  for (const entry of entries) {
    if (!entry.group) ordered.push(entry);
    else if (byGroup.get(entry.group)?.[0] === entry) ordered.push(...byGroup.get(entry.group)!);
  }
  return ordered;
}

/** Counts a group's members as they are added: they arrive one after another. */
export class GroupArrivals {
  private group?: DecisionGroup;
  private arrived = 0;

  /** How many members of `group` were added since its first, this one included. */
  count(group: DecisionGroup): number {
    if (this.group !== group) {
      this.group = group;
      this.arrived = 0;
    }
    return ++this.arrived;
  }
}
