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
   * bound the least recently used key is dropped, which can only make a limit start afresh.
   */
  maxKeys?: number;
}

/** Expired state is also swept at most this often (by the store's clock), not only when read. */
const SWEEP_INTERVAL_MICROS = 10_000_000;

interface Entry {
  state: unknown;
  expiresAtMicros: number;
}

/**
 * The algorithms in process, with the same results as their Lua twins for the same inputs
 * and clock. JavaScript runs each evaluation to completion, which makes it atomic here.
 *
 * @publicApi
 */
export class MemoryStore extends LimiterStore {
  private readonly now: () => number;
  private readonly clock?: LimiterClock;
  private readonly entries: LRUCache<string, Entry>;
  private nextSweepMicros = 0;

  constructor(options: MemoryStoreOptions = {}) {
    super();
    const { clock } = options;
    this.clock = clock;
    this.now = clock ? () => clock.now() : (options.now ?? Date.now);
    this.entries = new LRUCache<string, Entry>({ max: options.maxKeys ?? 100_000 });
  }

  evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision> {
    const nowMicros = toMicros(this.now());
    if (nowMicros >= this.nextSweepMicros) this.sweep(nowMicros);
    const entry = this.entries.get(key);
    const live = entry && entry.expiresAtMicros > nowMicros ? (entry.state as S) : undefined;
    const step = algorithm.step(live, nowMicros, params, request);
    if (step.state === undefined) {
      this.entries.delete(key);
    } else if (step.ttlMs !== null) {
      this.entries.set(key, { state: step.state, expiresAtMicros: nowMicros + step.ttlMs * 1000 });
    }
    return Promise.resolve(toDecision(step.reply, algorithm.limit(params)));
  }

  private sweep(nowMicros: number): void {
    this.nextSweepMicros = nowMicros + SWEEP_INTERVAL_MICROS;
    const expired: string[] = [];
    for (const [key, entry] of this.entries.entries()) {
      if (entry.expiresAtMicros <= nowMicros) expired.push(key);
    }
    for (const key of expired) this.entries.delete(key);
  }

  override sleep(milliseconds: number): Promise<void> {
    return this.clock ? this.clock.sleep(milliseconds) : super.sleep(milliseconds);
  }

  /** Forgets every key's state. */
  clear(): void {
    this.entries.clear();
    this.nextSweepMicros = 0;
  }

  /** Number of keys currently held (expired ones included until read or evicted). */
  get size(): number {
    return this.entries.size;
  }

  override async close(): Promise<void> {
    this.clear();
  }
}
