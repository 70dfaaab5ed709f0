import { ExecutionContext } from '@nestjs/common';
import { GuardAnswer } from '../errors/guard-answer';
import { GuardedRequest } from '../context/http-context';
import { OverloadException, OverloadProblemException } from '../errors/overload.exception';
import type { HandlerGate, OverloadGates } from '../compile/overload-gates';
import type { OverloadTicket } from '../overload/overload-gate';
import { RateLimiterModuleOptions } from '../rate-limiter.options';
import { DecisionReports } from './decision-reports';
import { setRetryAfter } from './rate-limit-headers';
import { holdUntilDone, once } from './concurrency-release';

/**
 * RateLimitGuard's overload step, before the other limits: the request's class read, a slot
 * of its gate taken, or a 503 with `Retry-After` thrown as the request's transport carries
 * it (gRPC UNAVAILABLE, a WebSocket error), with an `overload` event and the refusal counted
 * by class.
 */
export class OverloadGuard {
  constructor(
    private readonly options: RateLimiterModuleOptions,
    private readonly reports: DecisionReports,
    /** The gates, whose metrics exist once a gate does. */
    private readonly gates?: OverloadGates,
  ) {}

  /**
   * Runs `limits` (the request's other limits) inside a slot of its gate: the slot is held
   * until the request's work is over, or given back unlearned when `limits` refuses it.
   */
  async around(
    entry: HandlerGate,
    context: ExecutionContext,
    read: GuardedRequest,
    limits: () => boolean | Promise<boolean>,
  ): Promise<boolean> {
    const ticket = await this.admit(entry, context, read);
    try {
      const passed = await limits();
      holdUntilDone(
        context,
        read.response,
        once(async () => ticket.done()),
      );
      return passed;
    } catch (error) {
      ticket.cancel();
      throw error;
    }
  }

  private async admit(
    entry: HandlerGate,
    context: ExecutionContext,
    read: GuardedRequest,
  ): Promise<OverloadTicket> {
    const priority = entry.priorityOf({
      request: read.request,
      keyContext: () => read.facts.keyContext,
    });
    const ticket = await entry.gate.admit(priority);
    if (ticket) return ticket;
    this.gates?.metrics?.refused(entry.gate.name, priority);
    this.reports.overload({ outcome: 'overload', limit: entry.where, name: 'overload', priority });
    const retryAfterMs = entry.gate.retryAfterSeconds * 1000;
    const retryAfter = setRetryAfter(read.response, retryAfterMs);
    const exception =
      this.options.problemDetails && context.getType() === 'http'
        ? new OverloadProblemException(retryAfter)
        : new OverloadException(retryAfter);
    throw new GuardAnswer(exception, retryAfterMs);
  }
}
