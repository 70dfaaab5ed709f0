import { Decision } from '../../contracts/decision';
import { tokenBucket } from './token-bucket.algorithm';
import { TokenBucketParams, TokenBucketRequest, tokenBucketRequest } from './token-bucket.model';
import { KeyStateAccess, KeyStateLimiter } from '../state-ops/key-state-limiter';
import { tokenBucketOps } from './token-bucket.ops';
import { Seconds } from '../duration';

/** A peek asks for one permit, now. */
const PEEK_REQUEST: TokenBucketRequest = Object.freeze({ permits: 1, timeoutMicros: 0 });

/**
 * Arguments of {@link TokenBucketLimiter.tryAcquire}: permits (default 1), timeout in seconds
 * or a duration such as '500ms' (default 0).
 */
export interface TryAcquireOptions {
  permits?: number;
  timeout?: Seconds;
}

/**
 * A token bucket on one key, shared through the store by every process that uses the
 * same key and options. The math: token-bucket.model.ts.
 *
 * @publicApi
 */
export class TokenBucketLimiter extends KeyStateLimiter<TokenBucketParams> {
  private lastRequest?: { permits: number; timeout: Seconds; request: TokenBucketRequest };

  protected stateAccess(): KeyStateAccess<TokenBucketParams> {
    return { ops: tokenBucketOps, peekRequest: PEEK_REQUEST };
  }

  /**
   * Decides without waiting: the decision says whether `permits` (an integer >= 0) are
   * granted within `timeout` seconds and, if so, how long to wait for them (`waitMs`). The
   * permits are reserved when allowed. Infinity as timeout reserves whatever the wait. `0`
   * permits peeks; more than even a full bucket serves within the timeout is denied with
   * `retryAfterMs` -1 (it can never pass).
   */
  async decide(permits = 1, timeout: Seconds = 0): Promise<Decision> {
    return this.store.evaluate(tokenBucket, this.key, this.params, this.request(permits, timeout));
  }

  /** Callers repeat one request shape: validate and build it once, not per decision. */
  private request(permits: number, timeout: Seconds): TokenBucketRequest {
    const last = this.lastRequest;
    if (last && last.permits === permits && last.timeout === timeout) return last.request;
    const request = tokenBucketRequest(permits, timeout);
    this.lastRequest = { permits, timeout, request };
    return request;
  }

  /**
   * Takes permits if they can be had within `timeout` seconds, waiting for them; resolves
   * false at once, reserving nothing, when they cannot. `tryAcquire()` is
   * `tryAcquire({ permits: 1, timeout: 0 })`; a number is the permits.
   */
  async tryAcquire(options: TryAcquireOptions | number = {}): Promise<boolean> {
    const { permits = 1, timeout = 0 } =
      typeof options === 'number' ? { permits: options } : options;
    const decision = await this.decide(permits, timeout);
    if (decision.allowed && decision.waitMs > 0) await this.store.sleep(decision.waitMs);
    return decision.allowed;
  }

  /** Takes permits, waiting as long as needed; resolves with the milliseconds waited. Equals `tryAcquire` with an infinite timeout. */
  async acquire(permits = 1): Promise<number> {
    const waitMs = await this.reserve(permits);
    if (waitMs > 0) await this.store.sleep(waitMs);
    return waitMs;
  }

  /** Reserves permits and returns the milliseconds until they exist, without waiting. */
  async reserve(permits = 1): Promise<number> {
    return (await this.decide(permits, Infinity)).waitMs;
  }
}
