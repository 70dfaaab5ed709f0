import { Decision } from '../../contracts/decision';
import { LimiterAlgorithm } from '../limiter-algorithm';
import { DecisionSource } from '../decision-source';
import { StateOps } from './state-ops';
import { LimitState, limitStateOf, manualBlockMicros } from './state-ops.model';
import { Seconds } from '../duration';

/** What a limiter needs to act on its key: its operations and the request a peek tries. */
export interface KeyStateAccess<P> {
  ops: StateOps<P, any, any>;
  peekRequest: unknown;
}

/**
 * The operations every factory limiter but the concurrency limiter has on its key
 * (its state): peek, reset, refund and block. A limiter with the key of a decorator's
 * limit acts on that limit's state.
 *
 * @publicApi
 */
export abstract class KeyStateLimiter<P> {
  constructor(
    protected readonly store: DecisionSource,
    readonly key: string,
    readonly params: P,
  ) {}

  protected abstract stateAccess(): KeyStateAccess<P>;

  /** What a request could take now, and how long the key stays blocked; consumes nothing. */
  async peek(): Promise<LimitState> {
    const { ops, peekRequest } = this.stateAccess();
    const decision = await this.store.evaluate({
      algorithm: ops.peek,
      key: this.key,
      params: this.params,
      request: peekRequest,
    });
    const leased = this.store.leasedOn?.(this.key) ?? 0;
    return leased > 0 ? { ...limitStateOf(decision), leased } : limitStateOf(decision);
  }

  /** Forgets the key's state and its block: the next request finds a fresh limit. */
  async reset(): Promise<void> {
    await this.store.evaluate({
      algorithm: this.stateAccess().ops.reset,
      key: this.key,
      params: this.params,
      request: undefined,
    });
  }

  /**
   * Gives `permits` back (an integer >= 1), never above the limit's maximum; a windowed
   * limit gives them back to its current window, the sliding log removes its newest requests.
   */
  async refund(permits = 1): Promise<void> {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new RangeError(`refund(permits): an integer >= 1, got ${String(permits)}`);
    }
    const { refund } = this.stateAccess().ops;
    if (refund)
      await this.store.evaluate({
        algorithm: refund,
        key: this.key,
        params: this.params,
        request: { permits },
      });
  }

  /** Denies the key for `seconds` (> 0) from now on every server, whatever its state says. */
  async block(seconds: Seconds): Promise<void> {
    const micros = manualBlockMicros(seconds);
    await this.store.evaluate({
      algorithm: this.stateAccess().ops.block,
      key: this.key,
      params: this.params,
      request: micros,
    });
  }
}

/** What a limiter whose requests are a number of permits runs: its acquire, and a request. */
export interface PermitsAccess<P> extends KeyStateAccess<P> {
  acquire: LimiterAlgorithm<P, any, any>;
  /** The request of `permits` (validated, naming the limiter's factory method). */
  request(permits: number): unknown;
}

/**
 * A factory limiter that takes a number of permits per request: the fixed window
 * (`CountLimiter`), the sliding log, the approximate window and the leaky bucket.
 *
 * @publicApi
 */
export abstract class PermitsLimiter<P> extends KeyStateLimiter<P> {
  protected abstract override stateAccess(): PermitsAccess<P>;

  /**
   * Takes `permits` (an integer >= 0, default 1) if the limit has room for them, and returns
   * the full decision. A denial takes nothing; `0` peeks; more than the limit is denied with
   * `retryAfterMs` -1 (it can never pass).
   */
  decide(permits = 1): Promise<Decision> {
    // Not async: the store's promise is returned as it is, not wrapped in another one.
    try {
      const { acquire, request } = this.stateAccess();
      return this.store.evaluate({
        algorithm: acquire,
        key: this.key,
        params: this.params,
        request: request(permits),
      });
    } catch (error) {
      // An invalid `permits` (or a store that throws) rejects, as when this method was async.
      return Promise.reject(error);
    }
  }

  /** Takes `permits` (default 1); resolves true when the limit had room for them. */
  tryAcquire(permits = 1): Promise<boolean> {
    return this.decide(permits).then(allowedOf);
  }
}

const allowedOf = (decision: Decision): boolean => decision.allowed;
