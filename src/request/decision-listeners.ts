import { Injectable, Logger } from '@nestjs/common';
import { CompiledLimit } from '../compile/compiled-limit';
import { RateLimitEvent } from '../contracts/rate-limit-event';

/** Hears one decision of the guard, with the limit as compiled for that request. */
type GuardDecisionListener = (event: RateLimitEvent, limit: CompiledLimit) => void;

/**
 * The guard's decisions for the library's own listeners (the admin module's denial log),
 * beside the user's `onDecision`: a module can listen without taking the user's option.
 * Empty by default, and then the guard builds no event for it.
 */
@Injectable()
export class DecisionListeners {
  private readonly listeners: GuardDecisionListener[] = [];
  private readonly logger = new Logger('RateLimiter');

  get active(): boolean {
    return this.listeners.length > 0;
  }

  /** Adds a listener; the returned function removes it. */
  add(listener: GuardDecisionListener): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  /** Tells every listener; what one throws is logged, never thrown into the request. */
  emit(event: RateLimitEvent, limit: CompiledLimit): void {
    for (const listener of this.listeners) {
      try {
        listener(event, limit);
      } catch (error) {
        this.logger.error(
          `A decision listener threw: ${(error as Error)?.message ?? String(error)}`,
        );
      }
    }
  }
}
