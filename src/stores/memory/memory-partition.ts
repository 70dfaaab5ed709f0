import { LRUCache } from 'lru-cache';

/** One key's state in memory. */
export interface MemoryEntry {
  state: unknown;
  expiresAtMicros: number;
  /** Until when the key's last decision denies (a live denial); 0 when it denies nothing. */
  deniesUntilMicros: number;
}

/**
 * The keys of one limit (an algorithm and its options), in two tiers, each least recently
 * used first: keys that deny nothing, and keys whose last decision was a denial still in
 * force. The store evicts from the first tier before it ever touches the second, so a flood
 * of keys that deny nothing never costs a live denial (a 1-an-hour SMS limit), even when
 * the flood runs on a limit with the same options.
 */
export class MemoryPartition {
  private readonly open: LRUCache<string, MemoryEntry>;
  private readonly denying: LRUCache<string, MemoryEntry>;

  /**
   * `max` only backs up the store's own count of keys. As a size, not lru-cache's `max`,
   * which allocates room for `max` keys at once: a limit per tenant (an option resolved per
   * request) is a partition per tenant, most holding a key or two.
   */
  constructor(max: number) {
    this.open = new LRUCache({ maxSize: max, sizeCalculation: () => 1 });
    this.denying = new LRUCache({ maxSize: max, sizeCalculation: () => 1 });
  }

  // An empty tier is not asked: most partitions deny nothing most of the time, and every
  // operation of the cache costs (options, metrics channel) even when it finds nothing.

  get(key: string): MemoryEntry | undefined {
    return (this.denying.size > 0 ? this.denying.get(key) : undefined) ?? this.open.get(key);
  }

  /** Stores the entry in the tier its denial puts it in at `nowMicros`. */
  set(key: string, entry: MemoryEntry, nowMicros: number): void {
    const denies = entry.deniesUntilMicros > nowMicros;
    const from = denies ? this.open : this.denying;
    if (from.size > 0) from.delete(key);
    (denies ? this.denying : this.open).set(key, entry);
  }

  delete(key: string): boolean {
    const fromOpen = this.open.size > 0 && this.open.delete(key);
    return (this.denying.size > 0 && this.denying.delete(key)) || fromOpen;
  }

  /** Keys that deny nothing: the ones eviction takes first. */
  get openSize(): number {
    return this.open.size;
  }

  get size(): number {
    return this.open.size + this.denying.size;
  }

  /** Drops the least recently used key that denies nothing, else the oldest denial. */
  evictOne(): boolean {
    if (this.open.pop() !== undefined) return true;
    return this.denying.pop() !== undefined;
  }

  *entries(): IterableIterator<[string, MemoryEntry]> {
    yield* this.open.entries();
    yield* this.denying.entries();
  }
}
