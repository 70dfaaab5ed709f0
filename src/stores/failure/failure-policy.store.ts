import { Logger } from '@nestjs/common';
import { Decision } from '../../contracts/decision';
import type { DecisionCall } from '../../algorithms/decision-call';
import { LimiterAlgorithm } from '../../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../../errors/store-unavailable.error';
import { sleep } from '../sleep';
import { StoreErrorPolicy } from '../../contracts/store-error-policy';
import { Deadline, DeadlineQueue } from './deadline-queue';
import { LimiterStore } from '../limiter-store';
import { CircuitBreaker } from './circuit-breaker';
import { InsuranceStore } from './insurance-store';
import { StoreErrorLog } from './store-error-log';
import { StoreHealth, storeHealth } from './store-health';
import { DecisionListener } from '../../contracts/rate-limit-event';
import { PolicyCall, StoreErrorListener, storeCallOf } from './policy-call';

/** Who a store error of a direct `evaluate` is reported as (the store's public API). */
const DIRECT_CALLER_LABEL = 'RateLimiterFactory';
/** Most decisions waiting for the store at once; past it one fails at once: memory stays bounded. */
const MAX_IN_FLIGHT = 10_000;

/**
 * The one place where the store's failures meet `storeTimeout` and `onStoreError`, for the
 * guard and the module's factory alike ({@link decide}). Every decision
 * is bounded by `storeTimeout`, passed to the store as its deadline (so a Redis that resumes
 * skips it); a store that keeps timing out is skipped by a circuit breaker; a decision the
 * store could not make follows the policy: null ('allow', 'deny': the caller answers) or
 * the in-memory insurance store's decision ('fallback').
 *
 * Any error of the store counts, not only lost connections: a custom store that throws, or
 * a Redis error reply (a key of the wrong type), must not turn into a 500.
 */
export class FailurePolicyStore extends LimiterStore {
  /** The memory that decides under 'fallback': made when the module or a limit first needs it. */
  private insurance?: InsuranceStore;
  private readonly deadlines: DeadlineQueue;
  private readonly breaker = new CircuitBreaker();
  private readonly log: StoreErrorLog;
  private inFlight = 0;

  constructor(
    private readonly primary: LimiterStore,
    readonly policy: StoreErrorPolicy,
    private readonly storeTimeout: number,
    logger: Logger,
    private readonly onError?: StoreErrorListener,
    /**
     * Where the layers above report their decisions (the user's `onDecision` and the
     * metrics): the guard with its limit's name, the factory with its label. This layer
     * reports only what the store could not decide, through `onError`.
     */
    readonly onDecision?: DecisionListener,
    /** True while `onDecision` would record nothing (metrics on a no-op provider alone). */
    private readonly unheard?: () => boolean,
  ) {
    super();
    if (policy === 'fallback') this.insurance = new InsuranceStore();
    this.deadlines = new DeadlineQueue(storeTimeout);
    this.log = new StoreErrorLog(logger, policy);
    this.notifyError = (error, key, label, name) => {
      try {
        this.onError?.(error, key, label, name);
      } catch (listenerError) {
        logger.error(`onDecision threw: ${describe(listenerError)}`);
      }
    };
  }

  private readonly notifyError: StoreErrorListener;

  /** `onDecision` while a decision's event would be heard: undefined, no event is built. */
  decisionListener(): DecisionListener | undefined {
    return this.unheard?.() ? undefined : this.onDecision;
  }

  /** Whether the store answers now, within `storeTimeout`, and the breaker's state. */
  health(): Promise<StoreHealth> {
    return storeHealth(this.primary, this.storeTimeout, this.breaker.isOpen);
  }

  /** Checks once, without blocking start-up, that the store can run its scripts. */
  override check(): Promise<void> {
    return Promise.resolve()
      .then(() => this.primary.check?.())
      .catch((error: unknown) => this.log.checkFailed(error));
  }

  /**
   * The decision, or null when the store could not answer and no fallback did; never
   * rejects, whatever the store throws.
   */
  decide<P, R, S>(call: PolicyCall<P, R, S>): Promise<Decision | null> {
    const { onLateAnswer } = call;
    // What memory handed out goes back to memory, never to Redis, which never counted it.
    const takenBack = this.insurance?.takeBack(call);
    if (takenBack) return takenBack;
    let pending: Promise<Decision>;
    /** When the decision left for the store: its wait, and Redis's silence, count from then. */
    let sentAtMs: number;
    let deadline: Deadline | undefined;
    // False once the caller gave up (the decision waited for a call in flight past its
    // deadline): the store must not send it, so it changes nothing when Redis resumes.
    // Else when the caller now stops waiting: the deadline the store gives Redis is this one.
    const sent = (atMs: number): number | false => {
      if (deadline?.isSettled) return false;
      sentAtMs = atMs;
      if (!deadline) return atMs + this.storeTimeout;
      deadline.postpone(atMs + this.storeTimeout);
      return deadline.atMs;
    };
    try {
      const refusal = this.refusal();
      if (refusal) return this.unavailable(refusal, call);
      sentAtMs = performance.now();
      const deadlineMs = sentAtMs + this.storeTimeout;
      // Promise.resolve: a custom store that answers without a promise still counts.
      pending = Promise.resolve(this.primary.evaluate(storeCallOf(call, deadlineMs, sent)));
    } catch (thrown) {
      return this.unavailable(thrown, call);
    }
    this.inFlight++;
    return new Promise<Decision | null>((resolve) => {
      deadline = this.deadlines.start(() => {
        // Only Redis's silence opens the breaker: an answer to anything since this decision
        // was sent means Redis is there, only slow for this one (docs/design.md#the-failure-model).
        const answeredAt = this.primary.lastAnswerAtMs?.();
        if (answeredAt === undefined || answeredAt < sentAtMs) this.breaker.timedOut();
        const error = new StoreUnavailableError(
          `no answer within storeTimeout (${this.storeTimeout} ms)`,
        );
        resolve(this.unavailable(error, call));
      });
      deadline.postpone(sentAtMs + this.storeTimeout);
      pending.then(
        (decision) => {
          this.inFlight--;
          this.breaker.answered();
          if (!deadline!.settle()) return onLateAnswer?.(decision);
          this.log.succeeded(this.primary.lastAnswerAtMs?.());
          resolve(decision);
        },
        (thrown: unknown) => {
          this.inFlight--;
          // Redis answered, if only to refuse (an error reply, an entry skipped as too late).
          const answeredAt = this.primary.lastAnswerAtMs?.();
          if (answeredAt !== undefined && answeredAt >= sentAtMs) this.breaker.answered();
          if (deadline!.settle()) {
            resolve(this.unavailable(thrown, call));
          }
        },
      );
    });
  }

  /**
   * The store's view for any caller ({@link LimiterStore}): {@link decide}, then
   * {@link answer}. The factory decides through {@link decide} under its own label and
   * reports its decisions itself (limiter/factory-decisions.ts); a direct caller (code that
   * takes the module's store) has its store errors reported under the factory's label.
   */
  async evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    const { algorithm, key, params, request, group, partition } = call;
    const label = DIRECT_CALLER_LABEL;
    const decided = await this.decide({ algorithm, key, params, request, group, partition, label });
    return this.answer(decided, algorithm, params);
  }

  /**
   * A decision for a caller that takes no null: where the guard would let a request through
   * ('allow'), an allowed decision; where it would answer 503 ('deny'), a
   * {@link StoreUnavailableError} thrown for the caller to map.
   */
  answer<P>(
    decision: Decision | null,
    algorithm: LimiterAlgorithm<P, any, any>,
    params: P,
  ): Decision {
    if (decision) return decision;
    if (this.policy === 'deny') {
      throw new StoreUnavailableError('the rate-limit store is unavailable');
    }
    const limit = algorithm.limit(params);
    return { allowed: true, limit, remaining: limit, resetMs: 0, retryAfterMs: 0, waitMs: 0 };
  }

  /**
   * Waits on the primary store's clock. Optional chaining: a custom store given as a plain
   * object (a test double) may lack `sleep`, and then real timers apply.
   */
  override currentTimeMs(): number {
    return this.primary.currentTimeMs();
  }

  override leasedOn(key: string): number {
    // A custom store (or a test double) may predate leases.
    return this.primary.leasedOn?.(key) ?? 0;
  }

  override endLeases(): Promise<void> {
    return this.primary.endLeases?.() ?? Promise.resolve();
  }

  override sleep(milliseconds: number): Promise<void> {
    return this.primary.sleep?.(milliseconds) ?? sleep(milliseconds);
  }

  /** Why a decision must not go to the store now, if it must not: it would only wait. */
  private refusal(): StoreUnavailableError | undefined {
    // A connection known to be lost fails at once, queueing nothing while Redis is away.
    if (this.primary.isUnavailable?.()) {
      // Optional chaining: a custom store given as a plain object may lack the method.
      return new StoreUnavailableError(
        this.primary.unavailableCause?.() ?? 'the store is disconnected',
      );
    }
    if (this.inFlight >= MAX_IN_FLIGHT) {
      return new StoreUnavailableError(`${MAX_IN_FLIGHT} decisions already wait for the store`);
    }
    if (!this.breaker.allows()) {
      return new StoreUnavailableError('the store stopped answering (timeouts in a row)');
    }
    return undefined;
  }

  /** Applies the policy to a decision the store could not make: null, or the fallback's. */
  private async unavailable<P, R, S>(
    thrown: unknown,
    call: PolicyCall<P, R, S>,
  ): Promise<Decision | null> {
    const error =
      thrown instanceof StoreUnavailableError
        ? thrown
        : new StoreUnavailableError('the store failed', thrown);
    this.log.failed(error);
    this.notifyError(error, call.key, call.label ?? '', call.name);
    if ((call.policy ?? this.policy) !== 'fallback') return null;
    this.insurance ??= new InsuranceStore();
    try {
      return await this.insurance.decide(call);
    } catch {
      // The insurance store failing too (a custom algorithm that throws) leaves the policy's
      // answer without a decision: never a rejection, which callers do not expect.
      return null;
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
