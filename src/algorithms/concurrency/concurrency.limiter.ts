import { randomUUID } from 'node:crypto';
import { Decision } from '../../contracts/decision';
import { concurrency } from './concurrency.algorithm';
import { ConcurrencyParams, concurrencyRequest } from './concurrency.model';
import { DecisionSource } from '../limit-kind';
import { LimitState, limitStateOf, manualBlockMicros } from '../state-ops/state-ops.model';
import { concurrencyOps } from './concurrency.ops';
import { Seconds } from '../duration';

/**
 * The slots held by one in-flight request. Give them back with {@link release} when the
 * work is done; slots never released (a crashed server) are freed when their lease ends.
 *
 * @publicApi
 */
export interface ConcurrencySlot {
  /** The request's id in the store. */
  readonly id: string;
  /** The decision that granted the slot. */
  readonly decision: Decision;
  /** Gives the slots back. Idempotent: a second call waits for the first and sends nothing. */
  release(): Promise<void>;
}

/**
 * A concurrency limit on one key: at most `max` requests in flight at once across every
 * process that uses the same key and options, each slot held at most `lease` seconds.
 * The math: concurrency.model.ts.
 *
 * @example
 * ```ts
 * const slot = await factory.concurrencyLimiter({ key: 'export', max: 2, lease: 300 }).tryAcquire();
 * if (!slot) throw new RateLimitExceededException();
 * try {
 *   await runExport();
 * } finally {
 *   await slot.release();
 * }
 * ```
 *
 * @publicApi
 */
export class ConcurrencyLimiter {
  constructor(
    private readonly store: DecisionSource,
    readonly key: string,
    readonly params: ConcurrencyParams,
  ) {}

  /**
   * Takes `permits` slots (an integer >= 0, default 1) for `id` if that many are free, and
   * returns the full decision. An `id` already in flight with the same permits renews its
   * lease and keeps its slots; `0` peeks; more than `max` is denied with `retryAfterMs` -1
   * (it can never pass). Lower level than {@link tryAcquire}: the caller must
   * {@link release} the same id and permits.
   */
  async decide(id: string, permits = 1): Promise<Decision> {
    const request = concurrencyRequest('acquire', id, undefined, permits);
    return this.store.evaluate(concurrency, this.key, this.params, request);
  }

  /**
   * Gives back the `permits` slots (default 1) `id` took, together; releasing an id not in
   * flight (already released, or its lease ended) changes nothing. The decision reports
   * the slots now free.
   */
  async release(id: string, permits = 1): Promise<Decision> {
    const request = concurrencyRequest('release', id, undefined, permits);
    return this.store.evaluate(concurrency, this.key, this.params, request);
  }

  /**
   * Takes `permits` slots (default 1) under a new id, held and released together; resolves
   * null, taking nothing, when fewer are free.
   */
  async tryAcquire(permits = 1): Promise<ConcurrencySlot | null> {
    const id = randomUUID();
    const decision = await this.decide(id, permits);
    return decision.allowed ? new Slot(this, id, permits, decision) : null;
  }

  /** The slots free now and how long the key stays blocked, taking none. */
  async peek(): Promise<LimitState> {
    const { peek, peekRequest } = concurrencyOps;
    const decision = await this.store.evaluate(peek, this.key, this.params, peekRequest);
    return limitStateOf(decision);
  }

  /**
   * Refuses new slots on the key for `seconds` (> 0) from now, on every server; slots in
   * flight are kept and their releases still count.
   */
  async block(seconds: Seconds): Promise<void> {
    const micros = manualBlockMicros(seconds);
    await this.store.evaluate(concurrencyOps.block, this.key, this.params, micros);
  }

  /** Forgets every slot in flight on the key (their releases then change nothing). */
  async reset(): Promise<void> {
    await this.store.evaluate(concurrencyOps.reset, this.key, this.params, undefined);
  }
}

class Slot implements ConcurrencySlot {
  private released?: Promise<void>;

  constructor(
    private readonly limiter: ConcurrencyLimiter,
    readonly id: string,
    private readonly permits: number,
    readonly decision: Decision,
  ) {}

  release(): Promise<void> {
    this.released ??= this.limiter.release(this.id, this.permits).then(
      () => undefined,
      (error: unknown) => {
        // Nothing was released: let a later call try again (the lease frees it regardless).
        this.released = undefined;
        throw error;
      },
    );
    return this.released;
  }
}
