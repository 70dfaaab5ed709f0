import { Logger } from '@nestjs/common';
import { decisionEvent, emitEvent, softLimitEvent } from '../contracts/rate-limit-event';
import { DecisionSource } from '../algorithms/decision-source';
import { EngineAlgorithm, stateOwner, takesPermits } from '../algorithms/engine-algorithm';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';

/** The `limit` of the factory's events and of its store errors. */
const FACTORY_LABEL = 'RateLimiterFactory';

/**
 * The module's store as the factory's limiters use it: each decision goes through the
 * failure policy under the factory's label, and the factory reports it to the module's
 * listener (`onDecision`, the metrics), after any `store-error` the policy reported for it.
 * A peek, a block, a reset, a release or a refund decides nothing: only acquires are reported.
 */
export class FactoryDecisions implements DecisionSource {
  private readonly logger = new Logger('RateLimiter');

  constructor(private readonly store: FailurePolicyStore) {}

  readonly evaluate: DecisionSource['evaluate'] = async (call) => {
    const { algorithm, key, params, request } = call;
    // A fixed label, and the algorithm's name: never the key, which holds the client's id.
    const name = algorithmName(algorithm);
    const { store } = this;
    const label = FACTORY_LABEL;
    const decision = await store.decide({ algorithm, key, params, request, label, name });
    const listener = decision ? store.decisionListener() : undefined;
    if (listener && takesPermits(algorithm, request)) {
      const event = decisionEvent(FACTORY_LABEL, key, decision!, false, name);
      emitEvent(listener, event, this.logger);
      const soft = softLimitEvent(FACTORY_LABEL, key, decision!, name);
      if (soft) emitEvent(listener, soft, this.logger);
    }
    return store.answer(decision, algorithm, params);
  };

  sleep(milliseconds: number): Promise<void> {
    return this.store.sleep(milliseconds);
  }

  currentTimeMs(): number {
    return this.store.currentTimeMs();
  }

  leasedOn(key: string): number {
    return this.store.leasedOn(key);
  }
}

/**
 * A programmatic limiter's name in events and metrics: its algorithm's name, the same
 * whatever the key; its command without `limiter` (`limiterCountLimit` and its peek, block...
 * give `countLimit`, an algorithm of the app's own `limiterFoo` gives `foo`).
 */
function algorithmName(algorithm: EngineAlgorithm<any, any, any>): string {
  const command = stateOwner(algorithm).commandName.replace(/^limiter/, '');
  return command.charAt(0).toLowerCase() + command.slice(1);
}
