import { ExecutionContext, Logger } from '@nestjs/common';
import { rawResponse } from './concurrency-release';
import { RequestLedger, Settle } from './request-ledger';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { LimitContext } from '../contracts/limit-context';
import { whenAnswered } from './response-answered';
import { keptPermits } from './settled-permits';
import { correctTaken, Taken } from './taken-permits';

/**
 * For limits with `count: 'failures' | 'successes'` or `settle`: the
 * permits were taken before the handler, so concurrent requests never overshoot; once the
 * request's outcome is known, each limit keeps what it counts (none for an outcome it does
 * not count, else the settled cost, else what it took), all of the request's limits
 * together (see correctTaken). The outcome is settled once:
 * - once the handler has started, by the interceptor the module binds there
 *   (RateLimitInterceptor): the handler's own outcome decides, whenever its client left;
 * - before that, by the response's end, for what the handler never saw (a later guard's
 *   403): its status decides. A client that leaves decides nothing: if the handler then
 *   runs, its outcome settles; if nothing ever answers, the permits stay taken.
 */
export function settleAfterHandler(
  context: ExecutionContext,
  response: unknown,
  taken: readonly Taken[],
  store: FailurePolicyStore,
  logger: Logger,
  ctx: () => LimitContext,
): void {
  const settled = taken.filter((t) => t.decision.allowed && (t.limit.count || t.limit.settle));
  if (settled.length === 0) return;
  let done: Promise<boolean> | undefined;
  const settle: Settle = (outcome) =>
    (done ??= keptPermits(settled, outcome, ctx).then(
      async (kept) => {
        await correctTaken(store, settled, kept, logger);
        return true;
      },
      (error: unknown) => {
        logger.error((error as Error)?.message ?? String(error));
        return false;
      },
    ));
  const ledger = RequestLedger.of(context);
  ledger?.leave('settle', settle);
  const raw = rawResponse(response);
  if (!raw) return;
  whenAnswered(raw, (status) => {
    // Still pending: the handler never started, and the response tells how it ended.
    if (ledger && !ledger.holds('settle', settle)) return;
    ledger?.take('settle');
    void settle({ failed: status >= 400 });
  });
}
