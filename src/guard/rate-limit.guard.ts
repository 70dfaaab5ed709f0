import {
  CanActivate,
  ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  Logger,
  ServiceUnavailableException,
} from '@nestjs/common';
import { Decision } from '../algorithms/decision';
import { RateLimitExceededException } from '../errors/rate-limit-exceeded.exception';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { HeadersMode, RateLimiterModuleOptions } from '../rate-limiter.options';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { CompiledLimit } from './compiled-limit';
import { forContext } from './context-exception';
import { holdUntilDone, once } from '../algorithms/concurrency/concurrency-release';
import { waitWhileConnected } from './client-presence';
import { LimitExplorer } from './limit.explorer';
import { keysOf } from './limit-keys';
import { setLimitHeaders, setRetryAfter } from './rate-limit-headers';
import { RateLimitEvent } from './rate-limit-event';
import { readRequest } from './request-facts';

/** nginx's status for a request whose client closed the connection before the answer. */
const CLIENT_CLOSED_REQUEST = 499;

interface Outcome {
  limit: CompiledLimit;
  key: string;
  request: unknown;
  decision: Decision;
}

/**
 * Enforces every limit declared on a handler and its class. All limits are decided
 * (concurrently, one store round trip each) before anything waits; one denial denies the
 * request. Holds no per-request state: everything lives in locals.
 *
 * @publicApi
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  private readonly headers: HeadersMode;
  private readonly logger = new Logger('RateLimiter');

  constructor(
    private readonly explorer: LimitExplorer,
    private readonly store: FailurePolicyStore,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
  ) {
    this.headers = options.headers ?? 'legacy';
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const limits = this.explorer.limitsFor(context.getClass(), context.getHandler());
    if (limits.length === 0) return true;
    const { facts, response } = readRequest(context, this.options);
    const keys = keysOf(limits, facts, context, this.logger);
    // FailurePolicyStore turns every store failure into null or a fallback decision: never a
    // rejection, so no slot taken by one limit can be stranded by another limit's error.
    const decided =
      limits.length === 1
        ? [await this.decide(limits[0], keys[0])]
        : await Promise.all(limits.map((limit, i) => this.decide(limit, keys[i])));
    const outcomes = decided.filter((outcome): outcome is Outcome => outcome !== null);
    if (outcomes.length < limits.length && this.store.policy === 'deny') {
      this.releaseSlots(outcomes);
      throw forContext(context, new ServiceUnavailableException('Rate limiting is unavailable'));
    }
    if (outcomes.length === 0) return true; // store unavailable under 'allow'

    const denied = outcomes.filter((outcome) => !outcome.decision.allowed);
    this.describe(response, denied.length > 0 ? denied : outcomes);
    if (denied.length > 0) {
      this.releaseSlots(outcomes);
      const retryAfterMs = Math.max(
        ...denied.map(({ limit, decision }) => limit.retryAfterHintMs ?? decision.retryAfterMs),
      );
      throw forContext(
        context,
        this.createException(setRetryAfter(response, retryAfterMs), context),
      );
    }
    this.holdSlots(outcomes, context, response);
    const waitMs = Math.max(...outcomes.map((outcome) => outcome.decision.waitMs));
    if (waitMs > 0 && !(await waitWhileConnected(this.store.sleep(waitMs), response))) {
      // The client left while waiting for its slot: give the slot to the next request now,
      // and run no handler for nobody. (Its concurrency slots went back when it closed.)
      this.refundReservations(outcomes);
      throw forContext(context, new HttpException('Client Closed Request', CLIENT_CLOSED_REQUEST));
    }
    return true;
  }

  /** The 429 thrown on denial; override to change its body or type. */
  protected createException(retryAfterSeconds: number, _context: ExecutionContext): HttpException {
    return new RateLimitExceededException(retryAfterSeconds);
  }

  /** The limit's decision, or null when the store could not answer (and no fallback did). */
  private async decide(limit: CompiledLimit, key: string): Promise<Outcome | null> {
    const request = limit.newRequest();
    // A slot granted after storeTimeout would be held by nobody until its lease ends.
    const onLateAnswer = limit.holdsSlot
      ? (late: Decision) => {
          if (late.allowed) this.releaseQuietly({ limit, key, request, decision: late });
        }
      : undefined;
    const decision = await this.store.decide(
      limit.algorithm,
      key,
      limit.params,
      request,
      limit.where,
      onLateAnswer,
    );
    if (decision) {
      if (this.options.onDecision) {
        this.emit({
          outcome: decision.allowed ? 'allowed' : 'denied',
          limit: limit.where,
          key,
          decision,
        });
      }
      return { limit, key, request, decision };
    }
    return null;
  }

  private emit(event: RateLimitEvent): void {
    try {
      this.options.onDecision?.(event);
    } catch (error) {
      this.logger.error(`onDecision threw: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  /** Headers describe the limit with the least remaining. */
  private describe(response: unknown, outcomes: Outcome[]): void {
    if (!response || this.headers === false) return;
    let tightest = outcomes[0];
    for (const outcome of outcomes) {
      if (outcome.decision.remaining < tightest.decision.remaining) tightest = outcome;
    }
    setLimitHeaders(response, this.headers, tightest.limit, tightest.decision);
  }

  private holdSlots(outcomes: Outcome[], context: ExecutionContext, response: unknown): void {
    const held = outcomes.filter((outcome) => outcome.limit.holdsSlot);
    if (held.length === 0) return;
    holdUntilDone(
      context,
      response,
      once(() => Promise.all(held.map((outcome) => this.release(outcome)))),
    );
  }

  /** Fire and forget: the store layer never rejects, and a lost refund only errs strict. */
  private refundReservations(outcomes: Outcome[]): void {
    for (const { limit, key, request, decision } of outcomes) {
      const refund = limit.refundRequest?.(request);
      if (refund === undefined || !decision.allowed) continue;
      void this.store.decide(limit.algorithm, key, limit.params, refund, limit.where);
    }
  }

  private releaseSlots(outcomes: Outcome[]): void {
    for (const outcome of outcomes) {
      if (outcome.limit.holdsSlot && outcome.decision.allowed) this.releaseQuietly(outcome);
    }
  }

  /** A release nobody waits for; a failure leaves the slot to its lease. */
  private releaseQuietly(outcome: Outcome): void {
    this.release(outcome).catch((error: unknown) =>
      this.logger.warn(
        `Could not release a slot of ${outcome.limit.where}: ${(error as Error)?.message ?? String(error)}`,
      ),
    );
  }

  private async release(outcome: Outcome): Promise<void> {
    const release = outcome.limit.releaseRequest?.(outcome.request);
    if (release === undefined) return;
    await this.store.decide(outcome.limit.algorithm, outcome.key, outcome.limit.params, release);
  }
}
