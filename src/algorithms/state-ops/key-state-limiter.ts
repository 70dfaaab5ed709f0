import { DecisionSource } from '../limit-kind';
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
 * (DESIGN §9): peek, reset, refund and block. A limiter with the key of a decorator's
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
    const decision = await this.store.evaluate(ops.peek, this.key, this.params, peekRequest);
    return limitStateOf(decision);
  }

  /** Forgets the key's state and its block: the next request finds a fresh limit. */
  async reset(): Promise<void> {
    await this.store.evaluate(this.stateAccess().ops.reset, this.key, this.params, undefined);
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
    if (refund) await this.store.evaluate(refund, this.key, this.params, { permits });
  }

  /** Denies the key for `seconds` (> 0) from now on every server, whatever its state says. */
  async block(seconds: Seconds): Promise<void> {
    const micros = manualBlockMicros(seconds);
    await this.store.evaluate(this.stateAccess().ops.block, this.key, this.params, micros);
  }
}
