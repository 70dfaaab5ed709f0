import { Decision } from '../contracts/decision';
import type { DecisionCall } from '../algorithms/decision-call';
import { sleep } from './sleep';

/**
 * Where limiter state lives. Every decision is one atomic evaluation of an algorithm on
 * one key. Implemented by {@link RedisStore} (shared by every app server) and
 * {@link MemoryStore} (one process). An abstract class, so it is both the DI token and
 * the type a custom store extends.
 *
 * @publicApi
 */
export abstract class LimiterStore {
  /** Runs `call.algorithm` atomically on `call.key` and returns its decision. */
  abstract evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision>;

  /**
   * True while the store knows it cannot answer (a lost connection being retried), so a
   * decision fails at once instead of waiting for `storeTimeout`.
   */
  isUnavailable(): boolean {
    return false;
  }

  /** Why the store cannot answer, as its backend last said (a connection error), if known. */
  unavailableCause(): string | undefined {
    return undefined;
  }

  /**
   * `performance.now()` of the last answer that really came from the backend, or undefined
   * when every decision does (the failure policy declares an outage over only after one).
   */
  lastAnswerAtMs(): number | undefined {
    return undefined;
  }

  /**
   * The store's clock, epoch ms: where a calendar quota looks for its cycle (the memory store's
   * clock, so a test's manual clock moves cycles; Redis decides by its own `TIME`).
   */
  currentTimeMs(): number {
    return Date.now();
  }

  /** Checks at start-up that decisions can be made (rejects with the reason if not). */
  async check(): Promise<void> {}

  /**
   * Waits `milliseconds` on the store's clock: the guard and `RateLimiter` wait here
   * for a reserved slot, so a store on a manual clock (`nestjs-limiter/testing`) controls
   * waits as well as decisions. Real timers by default; never blocks the event loop.
   */
  sleep(milliseconds: number): Promise<void> {
    return sleep(milliseconds);
  }

  /**
   * Permits of `key` this server has leased (`lease: n`) and not handed out yet: what it
   * knows of the key's permits out on lease (docs/hot-keys.md). 0 for a store without leases.
   */
  leasedOn(_key: string): number {
    return 0;
  }

  /**
   * Ends every lease this server holds, what it did not use given back: a limit's
   * parameters changed (a live override), and permits counted under the old ones must not
   * be handed out under the new. Nothing for a store without leases.
   */
  async endLeases(): Promise<void> {}

  /** Releases what the store itself opened. Connections passed in by the user stay open. */
  async close(): Promise<void> {}
}

/** Milliseconds from a clock to the integer microseconds the algorithms work in. */
export function toMicros(milliseconds: number): number {
  return Math.round(milliseconds * 1000);
}
