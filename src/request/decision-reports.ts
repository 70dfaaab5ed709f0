import { Logger } from '@nestjs/common';
import { CompiledLimit, PlannedLimit } from '../compile/compiled-limit';
import { DecisionListener, emitEvent, RateLimitEvent } from '../contracts/rate-limit-event';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { DecisionListeners } from './decision-listeners';

/**
 * Who hears the guard's decisions: the user's `onDecision`, the metrics and the library's own
 * listeners (the admin page's, which may start listening after the guard is built).
 */
export class DecisionReports {
  constructor(
    private readonly store: FailurePolicyStore,
    private readonly options: RateLimiterModuleOptions,
    private readonly logger: Logger,
    private readonly listeners?: DecisionListeners,
  ) {}

  /** Tells every listener of a decision; undefined while nobody listens, so no event is built. */
  get report(): ((event: RateLimitEvent, limit: CompiledLimit) => void) | undefined {
    if (!this.decisionListener() && !this.listeners?.active) return undefined;
    return this.reportEvent;
  }

  /** Tells the user's `onDecision` and the metrics that a limit was skipped for a request. */
  readonly skipped = (limit: PlannedLimit): void => {
    emitEvent(
      this.decisionListener(),
      { outcome: 'skipped', limit: limit.where, name: limit.name },
      this.logger,
    );
  };

  /** Tells the user's `onDecision` and the metrics of a request the overload guard refused. */
  readonly overload = (event: RateLimitEvent): void => {
    emitEvent(this.decisionListener(), event, this.logger);
  };

  /**
   * The user's `onDecision` and the metrics, as the module's store reports to them, while a
   * decision would be heard (the store knows: metrics alone on the no-op provider hear nothing).
   */
  private decisionListener(): DecisionListener | undefined {
    return this.store.onDecision ? this.store.decisionListener() : this.options.onDecision;
  }

  private readonly reportEvent = (event: RateLimitEvent, limit: CompiledLimit): void => {
    emitEvent(this.decisionListener(), event, this.logger);
    if (this.listeners?.active) this.listeners.emit(event, limit);
  };
}
