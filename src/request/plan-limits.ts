import { ExecutionContext, InternalServerErrorException, Logger } from '@nestjs/common';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { CompiledLimit, PlannedLimit } from '../compile/compiled-limit';
import { LimitContext, SkipPredicate } from '../contracts/limit-context';
import { InvalidResolvedOptionError } from '../compile/resolvable-options';
import { LimitPlan } from '../compile/handler-routes';
import { GuardAnswer } from '../errors/guard-answer';
import { GuardedRequest, hasUser } from '../context/http-context';
import { RequestLimitContext } from '../context/request-limit-context';
import { limiterMessages } from '../rate-limiter.messages';
import { DecisionReports } from './decision-reports';

/** The limits of a handler's plan that apply to one request. */
export class PlanLimits {
  private readonly warnedAnonymous = new WeakSet<LimitPlan>();

  constructor(
    private readonly options: RateLimiterModuleOptions,
    private readonly reports: DecisionReports,
    private readonly logger: Logger,
  ) {}

  /**
   * A dynamic plan's limits for this request, once its skips and functions have run; a plan
   * that is not holds compiled limits only, returned as they are.
   */
  of(
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
  ): readonly CompiledLimit[] | Promise<readonly CompiledLimit[]> {
    if (!plan.dynamic) return this.checked(plan as readonly CompiledLimit[], plan, context, read);
    return this.applicable(plan, context, read).then((limits) =>
      this.checked(limits, plan, context, read),
    );
  }

  private checked(
    limits: readonly CompiledLimit[],
    plan: LimitPlan,
    context: ExecutionContext,
    read: GuardedRequest,
  ): readonly CompiledLimit[] {
    if (limits.length > 0 && plan.readsUser && !hasUser(read)) this.warnAnonymous(plan, context);
    return limits;
  }

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
      return await applicableLimits(plan, ctx, this.options.skip, this.reports.skipped);
    } catch (error) {
      if (!(error instanceof InvalidResolvedOptionError)) throw error;
      // Never allow on a value we cannot enforce: the app's mistake, answered as one.
      this.logger.error(error.message);
      throw new GuardAnswer(new InternalServerErrorException());
    }
  }
}

/**
 * The limits of a dynamic plan that apply to one request, compiled for it: none when the
 * module's `skip` says so, else those whose own `skip` does not, with the options that are
 * functions resolved. A skipped limit reads no key and costs no store call; `onSkipped`
 * hears of each. Rejects with `InvalidResolvedOptionError` for a value the algorithm refuses.
 */
async function applicableLimits(
  plan: readonly PlannedLimit[],
  ctx: LimitContext,
  moduleSkip: SkipPredicate | undefined,
  onSkipped: (limit: PlannedLimit) => void,
): Promise<readonly CompiledLimit[]> {
  if (moduleSkip && (await moduleSkip(ctx))) {
    for (const limit of plan) onSkipped(limit);
    return [];
  }
  const applicable: CompiledLimit[] = [];
  for (const limit of plan) {
    if (limit.skip && (await limit.skip(ctx))) onSkipped(limit);
    else applicable.push(limit.resolve ? await limit.resolve(ctx) : limit);
  }
  return applicable;
}
