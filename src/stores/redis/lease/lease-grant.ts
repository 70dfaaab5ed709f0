import { Decision } from '../../../contracts/decision';
import type { LeaseWindow } from './lease-fetch';
import { redisTimeOf } from './redis-time';

/**
 * What Redis said of the key with the permits it last granted a lease: what is left (the
 * leases counted as taken), the limit, when it is whole again, and the window the permits
 * were taken in, which their give-back names.
 */
export class LeaseGrant {
  /** What Redis said was left after the last lease (leased permits count as taken). */
  remaining = Infinity;
  limit = 0;
  /** `performance.now()` when the key is whole again: its window's end, a bucket refilled. */
  resetAtMs = 0;
  /** The window of the last permits granted, by its end on Redis's clock (µs), when known. */
  private windowEndsAtMicros?: number;
  /** What the bucket lacked after the last permits granted (ours counted), and for how long. */
  private lacking = 0;
  private refillMs = 0;

  /** The limit's permits come back at the end of a window (else a bucket refills them). */
  constructor(private readonly endsWithWindow: boolean) {}

  /** Records the last decision of a fetch; `granted`: how many of its permits were allowed. */
  record(last: Decision, granted: number, nowMs: number): void {
    this.remaining = last.remaining;
    this.limit = last.limit;
    if (granted === 0) return;
    this.resetAtMs = nowMs + last.resetMs;
    this.refillMs = last.resetMs;
    this.lacking = last.limit - last.remaining;
    this.windowEndsAtMicros = this.windowOf(last)?.windowEndsAtMicros;
  }

  /** A request's decision served from the lease. */
  served(nowMs: number): Decision {
    const { limit, remaining } = this;
    const resetMs = Math.max(0, this.resetAtMs - nowMs);
    return { allowed: true, limit, remaining, resetMs, retryAfterMs: 0, waitMs: 0 };
  }

  /**
   * The window the permits were taken in (none for a bucket): a give-back sent after it
   * ended, however late (the app stopped, a CPU-bound request), changes nothing in the next.
   * Told by its end on Redis's clock; by the time left (negative once past) where unknown.
   */
  window(nowMs: number): LeaseWindow | undefined {
    if (!this.endsWithWindow) return undefined;
    if (this.windowEndsAtMicros !== undefined) {
      return { windowEndsAtMicros: this.windowEndsAtMicros };
    }
    return { resetLeftMicros: (this.resetAtMs - nowMs) * 1000 };
  }

  /** The window a decision's permits were taken in, as {@link window} tells it. */
  windowOf(decision: Decision): LeaseWindow | undefined {
    if (!this.endsWithWindow) return undefined;
    const at = redisTimeOf(decision);
    if (at !== undefined) return { windowEndsAtMicros: at + decision.resetMs * 1000 };
    return { resetLeftMicros: decision.resetMs * 1000 };
  }

  /**
   * How many of `stock` leased permits a lease may still hold. A bucket refills (a leaky one
   * drains) into them: a lease holds no more than the bucket still lacks, which shrinks as
   * it refills, so what the lease and the bucket hold together never passes the bucket's
   * size. What the bucket took back is forgotten, never given back (it would count twice).
   */
  held(stock: number, nowMs: number): number {
    if (this.endsWithWindow || stock === 0 || !(this.refillMs > 0)) return stock;
    const left = Math.max(0, this.resetAtMs - nowMs) / this.refillMs;
    // Whole permits: a bucket short of a fraction of one still lacks it whole.
    return Math.min(stock, Math.ceil(this.lacking * left));
  }
}
