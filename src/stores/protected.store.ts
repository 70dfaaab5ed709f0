import { Logger } from '@nestjs/common';
import { Decision } from '../algorithms/decision';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../errors/store-unavailable.error';
import { sleep } from '../algorithms/sleep';
import { StoreErrorPolicy } from '../rate-limiter.options';
import { DeadlineQueue } from './deadline-queue';
import { LimiterStore } from './limiter-store';
import { MemoryStore } from './memory.store';

/** Told of every decision the store could not make, for the `onDecision` hook. */
export type StoreErrorListener = (error: StoreUnavailableError, key: string, label: string) => void;

/**
 * Bounds every decision by `timeoutMs` and applies the `onStoreError` policy in one
 * place, for the guard and the module's factory alike. An unavailable store yields `null`
 * ('allow' and 'deny': the caller answers) or a decision of the in-memory insurance store
 * ('fallback'). One warning per outage, one log line when the store is back.
 *
 * Any error of the store counts, not only lost connections: a custom store that throws, or
 * a Redis error reply (a key of the wrong type), must not turn into a 500.
 */
export class ProtectedStore {
  private down = false;
  private readonly fallback?: MemoryStore;
  private readonly deadlines: DeadlineQueue;

  constructor(
    private readonly primary: LimiterStore,
    readonly policy: StoreErrorPolicy,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly onError?: StoreErrorListener,
  ) {
    if (policy === 'fallback') this.fallback = new MemoryStore();
    this.deadlines = new DeadlineQueue(timeoutMs);
  }

  /**
   * The decision, or null when the store could not answer and no fallback did; never
   * rejects, whatever the store throws.
   * `onLateAnswer` receives a decision that arrived after `timeoutMs`, so a caller can give
   * back what it took (a concurrency slot) instead of holding it until its lease ends.
   */
  evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
    /** Names the limit in error reports. */
    label = '',
    onLateAnswer?: (decision: Decision) => void,
  ): Promise<Decision | null> {
    let pending: Promise<Decision>;
    try {
      // A connection known to be lost fails at once, queueing nothing while Redis is away.
      if (this.primary.isUnavailable()) {
        const error = new StoreUnavailableError('the store is disconnected');
        return this.unavailable(error, algorithm, key, params, request, label);
      }
      // Promise.resolve: a custom store that answers without a promise still counts.
      pending = Promise.resolve(this.primary.evaluate(algorithm, key, params, request));
    } catch (thrown) {
      return this.unavailable(thrown, algorithm, key, params, request, label);
    }
    return new Promise<Decision | null>((resolve) => {
      const deadline = this.deadlines.start(() => {
        const error = new StoreUnavailableError(
          `no answer within storeTimeout (${this.timeoutMs} ms)`,
        );
        resolve(this.unavailable(error, algorithm, key, params, request, label));
      });
      pending.then(
        (decision) => {
          if (!deadline.settle()) return onLateAnswer?.(decision);
          if (this.down) this.recovered();
          resolve(decision);
        },
        (thrown: unknown) => {
          if (deadline.settle()) {
            resolve(this.unavailable(thrown, algorithm, key, params, request, label));
          }
        },
      );
    });
  }

  /**
   * Waits on the primary store's clock. Optional chaining: a custom store given as a plain
   * object (a test double) may lack `sleep`, and then real timers apply.
   */
  sleep(milliseconds: number): Promise<void> {
    return this.primary.sleep?.(milliseconds) ?? sleep(milliseconds);
  }

  /** Applies the policy to a decision the store could not make: null, or the fallback's. */
  private async unavailable<P, R, S>(
    thrown: unknown,
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
    label: string,
  ): Promise<Decision | null> {
    const error =
      thrown instanceof StoreUnavailableError
        ? thrown
        : new StoreUnavailableError('the store failed', thrown);
    if (!this.down) this.failed(error);
    this.notify(error, key, label);
    return this.fallback ? this.fallback.evaluate(algorithm, key, params, request) : null;
  }

  private notify(error: StoreUnavailableError, key: string, label: string): void {
    try {
      this.onError?.(error, key, label);
    } catch (listenerError) {
      this.logger.error(`onDecision threw: ${describe(listenerError)}`);
    }
  }

  private failed(error: StoreUnavailableError): void {
    this.down = true;
    const action = {
      allow: 'allowed without limits',
      deny: 'denied with 503',
      fallback: 'limited in memory, per process',
    }[this.policy];
    this.logger.warn(
      `Rate-limit store unavailable (${error.message}): requests are ${action} until it is back`,
    );
  }

  private recovered(): void {
    this.down = false;
    this.logger.log('Rate-limit store is back: limits are shared again');
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
