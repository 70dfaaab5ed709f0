import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  HttpException,
  InternalServerErrorException,
  Inject,
  Injectable,
  Logger,
  Optional,
  ServiceUnavailableException,
} from '@nestjs/common';
import { NetworkPolicy } from '../keys/network-policy';
import { Decision } from '../contracts/decision';
import { RateLimitExceededException } from '../errors/rate-limit-exceeded.exception';
import { RateLimitProblemException } from '../errors/rate-limit-problem.exception';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { HeadersMode, RateLimiterModuleOptions } from '../rate-limiter.options';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { CompiledLimit, PlannedLimit } from '../plans/compiled-limit';
import { InvalidResolvedOptionError } from '../plans/resolvable-options';
import { forContext } from '../context/context-exception';
import { holdUntilDone, once } from '../after-handler/concurrency-release';
import { applicableLimits } from './applicable-limits';
import { waitWhileConnected } from './client-presence';
import { RequestLimitContext } from '../context/request-limit-context';
import { LimitExplorer, LimitPlan } from './limit.explorer';
import { keysOf } from './limit-keys';
import { describeLimits, setRetryAfter } from './rate-limit-headers';
import {
  DecisionListener,
  emitEvent,
  RateLimitEvent,
  reportOutcomes,
} from '../contracts/rate-limit-event';
import { GuardedRequest, hasUser } from '../context/http-context';
import { clientIp, readRequest } from '../context/request-facts';
import { limiterMessages } from '../rate-limiter.messages';
import { giveBack, Taken } from '../after-handler/taken-permits';
import { DecisionGroup } from '../contracts/decision-group';
import { settleAfterHandler } from '../after-handler/settlement';
import { RequestLedger } from '../after-handler/request-ledger';
import { interceptorBoundFor } from '../after-handler/rate-limit.interceptor';
import { DecisionListeners } from './decision-listeners';

/** nginx's status for a request whose client closed the connection before the answer. */
const CLIENT_CLOSED_REQUEST = 499;

type Outcome = Taken;

/**
 * Enforces every limit declared on a handler and its class. All limits are decided
 * (concurrently, one store round trip each) before anything waits; one denial denies the
 * request. A `shadow` limit is decided and reported but neither refuses, delays nor sets
 * headers. Holds no per-request state: everything lives in locals.
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
    /** The `allow` and `deny` networks; absent (a guard built by hand), none apply. */
    @Optional() private readonly networks?: NetworkPolicy,
    @Optional() private readonly listeners?: DecisionListeners,
  ) {
    this.headers = options.headers ?? 'legacy';
  }

  /**
   * Tells the user's `onDecision`, the metrics and the library's own listeners (the admin
   * page's, which may start listening after the guard is built); undefined while nobody
   * listens, so no event is built.
   */
  private get report(): ((event: RateLimitEvent, limit: CompiledLimit) => void) | undefined {
    if (!this.decisionListener() && !this.listeners?.active) return undefined;
    return this.reportEvent;
  }

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

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const plan = this.explorer.limitsFor(context.getClass(), context.getHandler());
    if (plan.length === 0 && !this.networks?.active) return true;
    // Bound twice (the global guard and @UseGuards): the first decides, once per request. A
    // request Nest gives no object for has no ledger: each guard decides.
    const ledger = RequestLedger.of(context);
    if (ledger && !ledger.claim()) return true;
    const read = readRequest(context, this.options);
    if (this.networks?.active) {
      // A denied network is refused wherever the guard runs; an allowed one is never limited.
      const verdict = this.networks.verdictFor(clientIp(read));
      if (verdict === 'deny') throw forContext(context, new ForbiddenException());
      if (verdict === 'allow') {
        for (const limit of plan) this.skipped(limit);
        return true;
      }
      if (plan.length === 0) return true;
    }
    if (plan.readsUser && !hasUser(read) && ledger && interceptorBoundFor(context)) {
      // Left to RateLimitInterceptor, which runs after every guard: a USER limit whose user
      // an auth guard bound after ours will set.
      ledger.leave('deferred', () =>
        this.enforce(plan, context, readRequest(context, this.options)),
      );
      return true;
    }
    return this.enforce(plan, context, read);
  }

  /**
   * Decides a request's limits, all together: at once, or after the app's guards when the
   * guard deferred them (then a request with still no user is counted by IP, said once).
   */
  private async enforce(
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
  ): Promise<boolean> {
    // A plan that is not dynamic holds compiled limits only (no option is a function).
    const limits = plan.dynamic
      ? await this.applicable(plan, context, read)
      : (plan as readonly CompiledLimit[]);
    if (limits.length === 0) return true;
    if (plan.readsUser && !hasUser(read)) this.warnAnonymous(plan, context);
    const { facts, response } = read;
    const keys = keysOf(limits, facts, context, this.logger);
    // FailurePolicyStore turns every store failure into null or a fallback decision: never a
    // rejection, so no slot taken by one limit can be stranded by another limit's error.
    const decided =
      limits.length === 1
        ? [await this.decide(limits[0], keys[0])]
        : await this.decideAll(limits, keys);
    const outcomes = decided.filter((outcome): outcome is Outcome => outcome !== null);
    // A shadow limit never refuses: not even when its store is unavailable under 'deny'.
    const unanswered = decided.some((outcome, i) => outcome === null && !limits[i].shadow);
    if (unanswered && this.store.policy === 'deny') {
      reportOutcomes(this.report, outcomes, true);
      this.releaseSlots(outcomes);
      await giveBack(this.store, outcomes, this.logger);
      throw forContext(context, new ServiceUnavailableException('Rate limiting is unavailable'));
    }
    const enforced = plan.hasShadow
      ? outcomes.filter((outcome) => !outcome.limit.shadow)
      : outcomes;
    if (outcomes.length === 0) return true; // store unavailable under 'allow'

    const denied = enforced.filter((outcome) => !outcome.decision.allowed);
    reportOutcomes(this.report, outcomes, denied.length > 0);
    if (enforced.length > 0 && response && this.headers !== false) {
      describeLimits(response, this.headers, enforced, denied);
    }
    if (denied.length > 0) {
      this.releaseSlots(outcomes);
      // All or nothing: a denied request keeps nothing any other limit gave it.
      await giveBack(this.store, outcomes, this.logger);
      const retries = denied.map(
        ({ limit, decision }) => limit.retryAfterMs?.(decision) ?? decision.retryAfterMs,
      );
      // A request costing more than a limit holds can never pass: no retry time is true.
      const retryAfterMs = retries.some((ms) => ms < 0) ? -1 : Math.max(...retries);
      const violated = denied.map((outcome) => outcome.limit.name);
      throw forContext(
        context,
        this.createException(setRetryAfter(response, retryAfterMs), context, violated),
      );
    }
    this.holdSlots(outcomes, context, response);
    const waitMs = Math.max(0, ...enforced.map((outcome) => outcome.decision.waitMs));
    if (waitMs > 0 && !(await waitWhileConnected(this.store.sleep(waitMs), response))) {
      // The client left while waiting for its slot: give the slot to the next request now,
      // and run no handler for nobody. (Its concurrency slots went back when it closed.)
      // Everything it took goes back, the token bucket's reservation included.
      void giveBack(
        this.store,
        outcomes.filter((outcome) => !outcome.limit.holdsSlot),
        this.logger,
      );
      throw forContext(context, new HttpException('Client Closed Request', CLIENT_CLOSED_REQUEST));
    }
    settleAfterHandler(context, response, outcomes, this.store, this.logger, () => {
      return new RequestLimitContext(context, read.request, facts);
    });
    return true;
  }

  private readonly warnedAnonymous = new WeakSet<LimitPlan>();

  /** A USER limit that found no user even after the app's guards: IP keys, said once. */
  private warnAnonymous(plan: LimitPlan, context: ExecutionContext): void {
    if (this.warnedAnonymous.has(plan)) return;
    this.warnedAnonymous.add(plan);
    const handler = `${context.getClass().name}.${context.getHandler().name}`;
    this.logger.warn(limiterMessages.userFallback(handler));
  }

  /** A dynamic plan's limits for this request (skips applied, functions resolved). */
  private async applicable(
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
  ): Promise<readonly CompiledLimit[]> {
    const ctx = new RequestLimitContext(context, read.request, read.facts);
    try {
      return await applicableLimits(plan, ctx, this.options.skip, this.skipped);
    } catch (error) {
      if (!(error instanceof InvalidResolvedOptionError)) throw error;
      // Never allow on a value we cannot enforce: the app's mistake, answered as one.
      this.logger.error(error.message);
      throw forContext(context, new InternalServerErrorException());
    }
  }

  private readonly skipped = (limit: PlannedLimit): void => {
    emitEvent(
      this.decisionListener(),
      { outcome: 'skipped', limit: limit.where, name: limit.name },
      this.logger,
    );
  };

  /**
   * The 429 thrown on denial; override to change its body or type. `violatedPolicies` are
   * the names of the limits that denied it.
   */
  protected createException(
    retryAfterSeconds: number,
    context: ExecutionContext,
    violatedPolicies: readonly string[] = [],
  ): HttpException {
    if (this.options.problemDetails && context.getType() === 'http') {
      return new RateLimitProblemException(retryAfterSeconds, violatedPolicies);
    }
    return new RateLimitExceededException(retryAfterSeconds);
  }

  /** Several limits, all or nothing where the store can (see taken-permits.ts). */
  private decideAll(limits: readonly CompiledLimit[], keys: string[]) {
    // A shadow limit never refuses, so it is no member: the others are sent first, together.
    const members = limits.filter((limit) => !limit.shadow).length;
    const group = members > 1 ? new DecisionGroup(members) : undefined;
    const decided = new Array<Promise<Outcome | null>>(limits.length);
    limits.forEach((limit, i) => {
      if (!limit.shadow) decided[i] = this.decide(limit, keys[i], group);
    });
    limits.forEach((limit, i) => {
      if (limit.shadow) decided[i] = this.decide(limit, keys[i]);
    });
    return Promise.all(decided);
  }

  /** The limit's decision, or null when the store could not answer (and no fallback did). */
  private async decide(
    limit: CompiledLimit,
    key: string,
    group?: DecisionGroup,
  ): Promise<Outcome | null> {
    const request = limit.newRequest();
    // A slot granted after storeTimeout would be held by nobody until its lease ends.
    const onLateAnswer = limit.holdsSlot
      ? (late: Decision) => {
          if (late.allowed) this.releaseQuietly({ limit, key, request, decision: late, atMs: 0 });
        }
      : undefined;
    const decision = await this.store.decide({
      algorithm: limit.algorithm,
      key,
      params: limit.params,
      request,
      label: limit.where,
      onLateAnswer,
      group,
      name: limit.name,
    });
    return decision ? { limit, key, request, decision, atMs: performance.now(), group } : null;
  }

  private holdSlots(outcomes: Outcome[], context: ExecutionContext, response: unknown): void {
    const held = outcomes.filter((outcome) => outcome.limit.holdsSlot && outcome.decision.allowed);
    if (held.length === 0) return;
    holdUntilDone(
      context,
      response,
      once(() => Promise.all(held.map((outcome) => this.release(outcome)))),
    );
  }

  private releaseSlots(outcomes: Outcome[]): void {
    for (const outcome of outcomes) {
      // An undone member holds no slot: the store put it back, or never sent it.
      if (!outcome.limit.holdsSlot || !outcome.decision.allowed) continue;
      if (!outcome.group?.undone.has(outcome.key)) this.releaseQuietly(outcome);
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
    await this.store.decide({
      algorithm: outcome.limit.algorithm,
      key: outcome.key,
      params: outcome.limit.params,
      request: release,
    });
  }
}
