import { Decision } from '../../contracts/decision';
import type { DecisionCall } from '../../algorithms/decision-call';
import { decisionOf, MemoryStep } from '../../algorithms/limiter-algorithm';
import { EngineAlgorithm, stateOwner, takesPermits } from '../../algorithms/engine-algorithm';
import { LimiterStore, toMicros } from '../limiter-store';
import { MemoryGroupRun } from './memory-group';
import { MemoryEntry, MemoryPartition } from './memory-partition';

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
   * bound, the limit holding the most keys that deny nothing loses its least recently used
   * one (see {@link MemoryStore}), which can only make that key start afresh.
   */
  maxKeys?: number;
}

/** Expired state is also swept at most this often (by the store's clock), not only when read. */
const SWEEP_INTERVAL_MICROS = 10_000_000;

/** A key's entry before a group ran, and where it lives. */
interface Snapshot {
  partition: MemoryPartition;
  entry: MemoryEntry | undefined;
}

/**
 * The algorithms in process, with the same results as their Lua twins for the same inputs
 * and clock. JavaScript runs each evaluation to completion, which makes it atomic here.
 *
 * Memory is bounded by `maxKeys`, and the bound is shared fairly: each limit (an algorithm
 * with its options) keeps its keys apart, and when the store is full the limit holding the
 * most keys that deny nothing gives up its least recently used one. A live denial (a
 * 1-an-hour SMS limit that denies) is evicted only when every key held is one: a flood of
 * distinct keys (`?q=` values on a search route, other values of the same template, another
 * limit with the same options) never costs it.
 *
 * @publicApi
 */
export class MemoryStore extends LimiterStore {
  private readonly now: () => number;
  private readonly clock?: LimiterClock;
  private readonly maxKeys: number;
  private readonly partitions = new Map<string, MemoryPartition>();
  private readonly partitionIds = new WeakMap<object, string>();
  private keyCount = 0;
  /** Partitions of limits whose params are made per request, numbered apart. */
  private partitionsMade = 0;
  private nextSweepMicros = 0;
  private groupRun?: MemoryGroupRun<Snapshot>;

  constructor(options: MemoryStoreOptions = {}) {
    super();
    const { clock } = options;
    this.clock = clock;
    this.now = clock ? () => clock.now() : (options.now ?? Date.now);
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    const { algorithm, key, params, request, group } = call;
    const nowMicros = toMicros(this.now());
    if (nowMicros >= this.nextSweepMicros) this.sweep(nowMicros);
    const partition = this.partitionOf(algorithm, params, call.partition);
    const entry = partition.get(key);
    // Anything but the next member of the open group ends it: its members are given back
    // by the caller instead.
    if (this.groupRun && this.groupRun.group !== group) this.groupRun = undefined;
    if (group && group.size > 1) {
      this.groupRun ??= new MemoryGroupRun<Snapshot>(group);
      this.groupRun.snapshot(key, { partition, entry });
    }
    const alive = entry !== undefined && entry.expiresAtMicros > nowMicros;
    const live = alive ? (entry.state as S) : undefined;
    const expiresAt = alive ? entry.expiresAtMicros : undefined;
    const step = algorithm.step(live, nowMicros, params, request, expiresAt);
    const deniesUntilMicros = deniesUntil(algorithm, request, step, nowMicros, entry);
    if (step.state === undefined) {
      if (entry) this.remove(partition, key);
    } else if (step.ttlMs !== null) {
      if (!entry) this.makeRoom();
      const expiresAtMicros = nowMicros + step.ttlMs * 1000;
      partition.set(key, { state: step.state, expiresAtMicros, deniesUntilMicros }, nowMicros);
      if (!entry) this.keyCount++;
    } else if (alive && entry.deniesUntilMicros !== deniesUntilMicros) {
      partition.set(key, { ...entry, deniesUntilMicros }, nowMicros);
    }
    const decision = decisionOf(algorithm, step.reply, params);
    const restore = this.groupRun?.decided(key, decision.allowed, step.undo);
    if (restore) {
      this.groupRun = undefined;
      for (const [k, before] of restore.entries) this.restore(k, before!);
      for (const undo of restore.undos) undo();
    }
    return Promise.resolve(decision);
  }

  override currentTimeMs(): number {
    return this.now();
  }

  /** Puts back what a key held before its group ran (all or nothing). */
  private restore(key: string, { partition, entry }: Snapshot): void {
    const now = partition.get(key);
    if (entry) {
      if (!now) this.keyCount++;
      partition.set(key, entry, toMicros(this.now()));
    } else if (now) {
      this.remove(partition, key);
    }
  }

  /**
   * The limit's own keys: found by the algorithm and its script arguments, once per params
   * object; or, for params made per request, by the call's `partition` (one per algorithm):
   * a key is one key whatever its plan, so a tenant whose plan changes keeps its state, as
   * it does in Redis.
   */
  private partitionOf<P>(
    algorithm: EngineAlgorithm<P, unknown, unknown>,
    params: P,
    shared?: object,
  ): MemoryPartition {
    const identity = shared ?? params;
    const cacheable = typeof identity === 'object' && identity !== null;
    let id = cacheable ? this.partitionIds.get(identity) : undefined;
    if (id === undefined) {
      // Peek, reset, refund and block act on the keys of the algorithm they belong to.
      const owner = stateOwner(algorithm);
      id = shared
        ? `${owner.commandName} #${++this.partitionsMade}`
        : `${owner.commandName} ${owner.paramsArgv(params).join(' ')}`;
      if (cacheable) this.partitionIds.set(identity, id);
    }
    let partition = this.partitions.get(id);
    if (!partition) {
      // Bounded by the store's own count; the cache's bound only backs it up.
      partition = new MemoryPartition(this.maxKeys);
      this.partitions.set(id, partition);
    }
    return partition;
  }

  /**
   * At the bound, the partition with the most keys that deny nothing drops its least
   * recently used one; only when every key held is a live denial does the largest
   * partition drop its oldest denial.
   */
  private makeRoom(): void {
    if (this.keyCount < this.maxKeys) return;
    let largest: MemoryPartition | undefined;
    for (const partition of this.partitions.values()) {
      if (partition.openSize > (largest?.openSize ?? 0)) largest = partition;
    }
    if (!largest) {
      for (const partition of this.partitions.values()) {
        if (!largest || partition.size > largest.size) largest = partition;
      }
    }
    if (largest?.evictOne()) this.keyCount--;
  }

  private remove(partition: MemoryPartition, key: string): void {
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

/**
 * Until when the key denies after this step: an acquire tells by its reply, a block (kept
 * in the state, see state-ops.model.ts) by its end; other operations leave it as it was.
 */
function deniesUntil<P, R, S>(
  algorithm: EngineAlgorithm<P, R, S>,
  request: R,
  step: MemoryStep<S>,
  nowMicros: number,
  entry: MemoryEntry | undefined,
): number {
  const [allowed, , , retryAfterMicros] = step.reply;
  let until = takesPermits(algorithm, request)
    ? allowed === 0
      ? nowMicros + retryAfterMicros
      : 0
    : (entry?.deniesUntilMicros ?? 0);
  const blockedUntil = (step.state as { blockedUntilMicros?: number } | undefined)
    ?.blockedUntilMicros;
  if (blockedUntil !== undefined && blockedUntil > until) until = blockedUntil;
  return until;
}
