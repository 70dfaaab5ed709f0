import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  HttpException,
  Inject,
  Injectable,
  Logger,
  Optional,
  ServiceUnavailableException,
} from '@nestjs/common';
import { NetworkPolicy } from '../keys/network-policy';
import { RateLimitExceededException } from '../errors/rate-limit-exceeded.exception';
import { RateLimitProblemException } from '../errors/rate-limit-problem.exception';
import { RATE_LIMITER_OPTIONS } from '../rate-limiter.module-definition';
import { OUTSIDE_DENY_LIST } from '../rate-limiter.constants';
import { HeadersMode, RateLimiterModuleOptions } from '../rate-limiter.options';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { answerFor } from '../context/context-exception';
import { GuardAnswer } from '../errors/guard-answer';
import { LimitExplorer } from '../compile/limit.explorer';
import { LimitPlan } from '../compile/handler-routes';
import { CompiledLimit } from '../compile/compiled-limit';
import { keysOf } from './limit-keys';
import { denialOf, describeLimits } from './rate-limit-headers';
import { reportOutcomes } from '../contracts/rate-limit-event';
import { GuardedRequest, hasUser } from '../context/http-context';
import { readRequest } from '../context/request-facts';
import { Taken } from './taken-permits';
import { RequestLedger } from './request-ledger';
import { interceptorBoundFor } from './rate-limit.interceptor';
import { DecisionListeners } from './decision-listeners';
import { LimitDecisions } from './limit-decisions';
import { DecisionReports } from './decision-reports';
import { PlanLimits } from './plan-limits';
import { OverloadGates } from '../compile/overload-gates';
import { OverloadGuard } from './overload-guard';

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
  private readonly decisions: LimitDecisions;
  private readonly reports: DecisionReports;
  private readonly planLimits: PlanLimits;
  private readonly overloadGuard: OverloadGuard;

  constructor(
    private readonly explorer: LimitExplorer,
    private readonly store: FailurePolicyStore,
    @Inject(RATE_LIMITER_OPTIONS) private readonly options: RateLimiterModuleOptions,
    /** The `allow` and `deny` networks; absent (a guard built by hand), none apply. */
    @Optional() private readonly networks?: NetworkPolicy,
    @Optional() listeners?: DecisionListeners,
    @Optional() overload?: OverloadGates,
  ) {
    this.headers = options.headers ?? 'legacy';
    this.decisions = new LimitDecisions(store, this.logger);
    this.reports = new DecisionReports(store, options, this.logger, listeners);
    this.planLimits = new PlanLimits(options, this.reports, this.logger);
    this.overloadGuard = new OverloadGuard(options, this.reports, overload);
  }

  /**
   * A boolean where the request is settled without the store (no limit, decided already,
   * deferred, an allowed network); else one promise, which rejects with the answer in the
   * form of the request's transport.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    let passed: boolean | Promise<boolean>;
    try {
      passed = this.activate(context);
    } catch (error) {
      return rejectedWith(context, error);
    }
    if (typeof passed === 'boolean') return passed;
    return passed.catch((error: unknown) => rejectedWith(context, error));
  }

  private activate(context: ExecutionContext): boolean | Promise<boolean> {
    const { plan, gate } = this.explorer.routes.of(context.getClass(), context.getHandler());
    if (plan.length === 0 && !this.networks?.active && !gate) return true;
    // Bound twice (the global guard and @UseGuards): the first decides, once per request. A
    // request Nest gives no object for has no ledger: each guard decides.
    const ledger = RequestLedger.of(context);
    if (ledger && !ledger.claim()) return true;
    const read = readRequest(context, this.options);
    if (this.networks?.active) {
      // A denied network is refused wherever the guard runs (but on the admin's routes, whose
      // own guards decide: else a deny list that covers the admin locks out its undo); an
      // allowed one is never limited, there included.
      const verdict = this.networks.verdictFor(clientIp(read));
      if (verdict === 'deny' && !Reflect.getMetadata(OUTSIDE_DENY_LIST, context.getClass())) {
        throw new GuardAnswer(new ForbiddenException());
      }
      if (verdict === 'allow') {
        for (const limit of plan) this.reports.skipped(limit);
        return true;
      }
    }
    // The server's own limit first: a request it refuses costs the store nothing.
    if (gate) {
      const limits = () => this.enforce(plan, context, read, ledger);
      return this.overloadGuard.around(gate, context, read, limits);
    }
    return this.enforce(plan, context, read, ledger);
  }

  /**
   * Decides a request's limits, all together: at once, or after the app's guards when the
   * guard deferred them (then a request with still no user is counted by IP, said once).
   * Every limit is decided before anything waits; one denial denies the request.
   */
  private enforce(
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
    /** The request's ledger, where a decision can be left for later; none once it was. */
    ledger?: RequestLedger,
  ): boolean | Promise<boolean> {
    if (plan.length === 0) return true;
    if (plan.readsUser && !hasUser(read) && ledger && interceptorBoundFor(context)) {
      // Left to RateLimitInterceptor, which runs after every guard: a USER limit whose user
      // an auth guard bound after ours will set.
      ledger.leave('deferred', () => this.deferred(plan, context));
      return true;
    }
    const limits = this.planLimits.of(plan, context, read);
    if (!(limits instanceof Promise)) return this.decide(limits, plan, context, read);
    return limits.then((applicable) => this.decide(applicable, plan, context, read));
  }

  /** The decision the guard left to RateLimitInterceptor; rejects as the guard would throw. */
  private deferred(plan: LimitPlan, context: ExecutionContext): Promise<boolean> {
    try {
      const passed = this.enforce(plan, context, readRequest(context, this.options));
      return Promise.resolve(passed).catch((error: unknown) => rejectedWith(context, error));
    } catch (error) {
      return rejectedWith(context, error);
    }
  }

  /** Sends the limits that apply to the store, all at once; settles on their decisions. */
  private decide(
    limits: readonly CompiledLimit[],
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
  ): boolean | Promise<boolean> {
    if (limits.length === 0) return true;
    const keys = keysOf(limits, read.facts, this.logger);
    return this.decisions
      .decide(limits, keys)
      .then((decided) => this.settle(decided, limits, plan, context, read));
  }

  /** The request's answer once every limit is decided (`null`: the store could not answer). */
  private settle(
    decided: (Taken | null)[],
    limits: readonly CompiledLimit[],
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
  ): boolean | Promise<boolean> {
    const outcomes: Taken[] = [];
    // A limit the store could not answer refuses the request where its policy (its own, else
    // the module's) is 'deny'. A shadow limit never refuses, not even then.
    let unansweredUnderDeny = false;
    for (let i = 0; i < decided.length; i++) {
      const outcome = decided[i];
      if (outcome !== null) outcomes.push(outcome);
      else if (!limits[i].shadow && (limits[i].onStoreError ?? this.store.policy) === 'deny') {
        unansweredUnderDeny = true;
      }
    }
    if (unansweredUnderDeny) {
      reportOutcomes(this.reports.report, outcomes, true);
      return this.decisions.giveBack(outcomes).then(() => {
        throw new GuardAnswer(new ServiceUnavailableException('Rate limiting is unavailable'));
      });
    }
    if (outcomes.length === 0) return true; // store unavailable under 'allow'
    const enforced = plan.hasShadow
      ? outcomes.filter((outcome) => !outcome.limit.shadow)
      : outcomes;
    const denied = enforced.filter((outcome) => !outcome.decision.allowed);
    reportOutcomes(this.reports.report, outcomes, denied.length > 0);
    if (enforced.length > 0 && read.response && this.headers !== false) {
      describeLimits(read.response, this.headers, enforced, denied);
    }
    if (denied.length > 0) {
      // All or nothing: a denied request keeps nothing any other limit gave it; then 429.
      return this.decisions.giveBack(outcomes).then(() => {
        const denial = denialOf(denied, read.response, context, this.options, this.logger);
        const { retryAfter, violated, message, retryAfterMs } = denial;
        throw new GuardAnswer(
          this.createException(retryAfter, context, violated, message),
          retryAfterMs,
        );
      });
    }
    return this.decisions.admitAllowed(outcomes, enforced, context, read);
  }

  /**
   * The 429 thrown on denial; override to change its body or type. `violatedPolicies` are
   * the names of the limits that denied it; `message` is the module's `errorMessage`, when
   * it has one.
   */
  protected createException(
    retryAfterSeconds: number,
    context: ExecutionContext,
    violatedPolicies: readonly string[] = [],
    message?: string,
  ): HttpException {
    if (this.options.problemDetails && context.getType() === 'http') {
      return new RateLimitProblemException(retryAfterSeconds, violatedPolicies, message);
    }
    return new RateLimitExceededException(retryAfterSeconds, message);
  }
}

/** Rejects with `error` as the request's transport carries it (answerFor). */
function rejectedWith(context: ExecutionContext, error: unknown): Promise<never> {
  return answerFor(context, error).then(thrown);
}

function thrown(answer: unknown): never {
  throw answer;
}

/** The client address as IP keys see it; '' where the context has none to give. */
function clientIp(read: GuardedRequest): string {
  try {
    return read.facts.ip;
  } catch {
    return ''; // a GraphQL context without its HTTP request: its limits say so themselves
  }
}
