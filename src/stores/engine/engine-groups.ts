import type { EngineEntry } from './engine-client';

/**
 * Where each complete group starts in a batch, and its size: the members of a group that
 * are all in the batch, one after another, with distinct keys. A group found otherwise
 * (split, or interleaved with other entries) is sent as plain entries, and its caller gives
 * back what they took.
 */
export function groupStarts(entries: readonly EngineEntry[]): Map<number, number> {
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
