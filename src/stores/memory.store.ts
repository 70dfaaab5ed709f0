import { LRUCache } from 'lru-cache';
import { Decision, toDecision } from '../algorithms/decision';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { LimiterStore, toMicros } from './limiter-store';

/**
 * A clock that also schedules waits, so that tests can move time by hand (`ManualClock` of
 * `nestjs-limiter/testing`).
 *
 * @publicApi
 */
export interface LimiterClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolves when the clock has advanced by `milliseconds`. */
  sleep(milliseconds: number): Promise<void>;
}

/** @publicApi */
export interface MemoryStoreOptions {
  /** Clock in milliseconds, default `Date.now`. Inject one to control time in tests. */
  now?: () => number;
  /** Decisions and waits on this clock; takes precedence over `now`. */
  clock?: LimiterClock;
  /**
   * Most keys kept at once, default 100_000. Expired state is dropped when read; past this
   * bound, the limit holding the most keys loses its least recently used one (see
   * {@link MemoryStore}), which can only make that key start afresh.
   */
  maxKeys?: number;
}

/** Expired state is also swept at most this often (by the store's clock), not only when read. */
const SWEEP_INTERVAL_MICROS = 10_000_000;

interface Entry {
  state: unknown;
  expiresAtMicros: number;
}

/** The keys of one limit (an algorithm and its options), least recently used first. */
type Partition = LRUCache<string, Entry>;

/**
 * The algorithms in process, with the same results as their Lua twins for the same inputs
 * and clock. JavaScript runs each evaluation to completion, which makes it atomic here.
 *
 * Memory is bounded by `maxKeys`, and the bound is shared fairly: each limit (an algorithm
 * with its options) keeps its keys apart, and when the store is full the limit holding the
 * most keys gives up its least recently used one. A flood of distinct keys on one limit
 * (`?q=` values on a search route) thus evicts only its own keys, never the state of
 * another limit that still denies (a 1-an-hour SMS limit). Limits with identical options
 * share one partition.
 *
 * @publicApi
 */
export class MemoryStore extends LimiterStore {
  private readonly now: () => number;
  private readonly clock?: LimiterClock;
  private readonly maxKeys: number;
  private readonly partitions = new Map<string, Partition>();
  private readonly partitionIds = new WeakMap<object, string>();
  private keyCount = 0;
  private nextSweepMicros = 0;

  constructor(options: MemoryStoreOptions = {}) {
    super();
    const { clock } = options;
    this.clock = clock;
    this.now = clock ? () => clock.now() : (options.now ?? Date.now);
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision> {
    const nowMicros = toMicros(this.now());
    if (nowMicros >= this.nextSweepMicros) this.sweep(nowMicros);
    const partition = this.partitionOf(algorithm, params);
    const entry = partition.get(key);
    const live = entry && entry.expiresAtMicros > nowMicros ? (entry.state as S) : undefined;
    const step = algorithm.step(live, nowMicros, params, request);
    if (step.state === undefined) {
      if (entry) this.remove(partition, key);
    } else if (step.ttlMs !== null) {
      if (!entry) this.makeRoom();
      partition.set(key, { state: step.state, expiresAtMicros: nowMicros + step.ttlMs * 1000 });
      if (!entry) this.keyCount++;
    }
    return Promise.resolve(toDecision(step.reply, algorithm.limit(params)));
  }

  /** The limit's own keys: found by the algorithm and its script arguments, once per params object. */
  private partitionOf<P>(algorithm: LimiterAlgorithm<P, unknown, unknown>, params: P): Partition {
    const cacheable = typeof params === 'object' && params !== null;
    let id = cacheable ? this.partitionIds.get(params) : undefined;
    if (id === undefined) {
      id = `${algorithm.commandName} ${algorithm.paramsArgv(params).join(' ')}`;
      if (cacheable) this.partitionIds.set(params, id);
    }
    let partition = this.partitions.get(id);
    if (!partition) {
      // Bounded by the store's own count; the cache's bound only backs it up.
      partition = new LRUCache<string, Entry>({ max: this.maxKeys });
      this.partitions.set(id, partition);
    }
    return partition;
  }

  /** At the bound, the largest partition drops its least recently used key. */
  private makeRoom(): void {
    if (this.keyCount < this.maxKeys) return;
    let largest: Partition | undefined;
    for (const partition of this.partitions.values()) {
      if (!largest || partition.size > largest.size) largest = partition;
    }
    if (largest?.pop() !== undefined) this.keyCount--;
  }

  private remove(partition: Partition, key: string): void {
    if (partition.delete(key)) this.keyCount--;
  }

  private sweep(nowMicros: number): void {
    this.nextSweepMicros = nowMicros + SWEEP_INTERVAL_MICROS;
    for (const [id, partition] of this.partitions) {
      const expired: string[] = [];
      for (const [key, entry] of partition.entries()) {
        if (entry.expiresAtMicros <= nowMicros) expired.push(key);
      }
      for (const key of expired) this.remove(partition, key);
      if (partition.size === 0) this.partitions.delete(id);
    }
  }

  override sleep(milliseconds: number): Promise<void> {
    return this.clock ? this.clock.sleep(milliseconds) : super.sleep(milliseconds);
  }

  /** Forgets every key's state. */
  clear(): void {
    this.partitions.clear();
    this.keyCount = 0;
    this.nextSweepMicros = 0;
  }

  /** Number of keys currently held (expired ones included until read or swept). */
  get size(): number {
    return this.keyCount;
  }

  override async close(): Promise<void> {
    this.clear();
  }
}
