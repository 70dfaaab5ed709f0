import { Logger } from '@nestjs/common';
import { Decision } from '../algorithms/decision';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../errors/store-unavailable.error';
import { StoreErrorPolicy } from '../rate-limiter.options';
import { LimiterStore } from './limiter-store';
import { MemoryStore } from './memory.store';

/** Listener of every store outage and recovery, for metrics. */
export type StoreHealthListener = (event: 'down' | 'up', error?: Error) => void;

/**
 * Bounds every decision by `timeoutMs` and applies the `onStoreError` policy in one
 * place. An unavailable store yields `null` ('allow' and 'deny', the guard answers) or a
 * decision of the in-memory insurance store ('fallback'). One warning per outage, one
 * log line when the store is back.
 */
export class ProtectedStore {
  private down = false;
  private readonly fallback?: MemoryStore;

  constructor(
    private readonly primary: LimiterStore,
    private readonly policy: StoreErrorPolicy,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly onHealth?: StoreHealthListener,
    private readonly onError?: (error: StoreUnavailableError, key: string, label: string) => void,
  ) {
    if (policy === 'fallback') this.fallback = new MemoryStore();
  }

  async evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
    /** Names the limit in error reports. */
    label = '',
  ): Promise<Decision | null> {
    try {
      // A connection known to be lost fails at once, queueing nothing while Redis is away.
      if (this.primary.isUnavailable())
        throw new StoreUnavailableError('the store is disconnected');
      const decision = await this.withTimeout(
        this.primary.evaluate(algorithm, key, params, request),
      );
      if (this.down) this.recovered();
      return decision;
    } catch (error) {
      if (!(error instanceof StoreUnavailableError)) throw error;
      if (!this.down) this.failed(error);
      this.onError?.(error, key, label);
      return this.fallback ? this.fallback.evaluate(algorithm, key, params, request) : null;
    }
  }

  /** The store's answer, or a StoreUnavailableError once `timeoutMs` passes; a late answer is dropped. */
  private withTimeout<T>(pending: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new StoreUnavailableError(`no answer within storeTimeout (${this.timeoutMs} ms)`)),
        this.timeoutMs,
      );
      pending.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
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
    this.onHealth?.('down', error);
  }

  private recovered(): void {
    this.down = false;
    this.logger.log('Rate-limit store is back: limits are shared again');
    this.onHealth?.('up');
  }
}
