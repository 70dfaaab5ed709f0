import { Logger } from '@nestjs/common';
import { Decision } from '../algorithms/decision';
import { DecisionListener, decisionEvent, emitEvent } from '../guard/rate-limit-event';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../errors/store-unavailable.error';
import { LimiterStore } from './limiter-store';
import { ProtectedStore } from './protected.store';

const FACTORY_LABEL = 'RateLimiterFactory';

/**
 * The module's factory store: the guard's `storeTimeout` and `onStoreError` apply to
 * programmatic limiters too. Where the guard would let a request through ('allow'), the
 * limiter allows; where it would answer 503 ('deny'), the limiter throws
 * {@link StoreUnavailableError} for the caller to map.
 */
export class PolicyBoundStore extends LimiterStore {
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly protectedStore: ProtectedStore,
    /** Told of every decision (store errors are reported by the protected store). */
    private readonly onDecision?: DecisionListener,
  ) {
    super();
  }

  override sleep(milliseconds: number): Promise<void> {
    return this.protectedStore.sleep(milliseconds);
  }

  async evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision> {
    // A fixed label: store-error events name the key, whose prefix tells the algorithm.
    const decision = await this.protectedStore.evaluate(
      algorithm,
      key,
      params,
      request,
      FACTORY_LABEL,
    );
    if (decision) {
      if (this.onDecision && algorithm.isDecision?.(request) !== false) {
        const event = decisionEvent(FACTORY_LABEL, key, decision);
        emitEvent(this.onDecision, event, this.logger);
      }
      return decision;
    }
    if (this.protectedStore.policy === 'deny') {
      throw new StoreUnavailableError('the rate-limit store is unavailable');
    }
    const limit = algorithm.limit(params);
    return { allowed: true, limit, remaining: limit, resetMs: 0, retryAfterMs: 0, waitMs: 0 };
  }
}
