import { ExecutionContext, Logger } from '@nestjs/common';
import { carrierOf, rawResponse } from '../algorithms/concurrency/concurrency-release';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { giveBack, Taken } from './taken-permits';

/** Ends a request's counting: `failed` is its outcome; calling it again does nothing. */
export type SettleOutcome = (failed: boolean) => Promise<void>;

const pending = new WeakMap<object, SettleOutcome>();

/**
 * For limits with `count: 'failures'` or `'successes'` (DESIGN §9): the permits were taken
 * before the handler, so concurrent requests never overshoot; when the request's outcome
 * is known, the limits it does not count for give their permits back. The outcome is
 * settled once, by the first of:
 * - the interceptor the decorator attaches (CountOutcomeInterceptor): a thrown error is a
 *   failure, a result is judged by its status, and the refund is made before the response
 *   is written, so a client's next request finds it done;
 * - the response's end, for what the interceptor never saw (a later guard's 403): its
 *   status decides; a response closed before it was finished (the client left) is a failure.
 */
export function countOutcomes(
  context: ExecutionContext,
  response: any,
  taken: readonly Taken[],
  store: FailurePolicyStore,
  logger: Logger,
): void {
  const counted = taken.filter((t) => t.limit.count && t.decision.allowed);
  if (counted.length === 0) return;
  let settled: Promise<void> | undefined;
  const settle: SettleOutcome = (failed) =>
    (settled ??= giveBack(
      store,
      counted.filter((t) => (t.limit.count === 'failures') !== failed),
      logger,
    ));
  const carrier = carrierOf(context);
  if (carrier) pending.set(carrier, settle);
  const raw = rawResponse(response);
  if (raw) {
    raw.once('finish', () => void settle(raw.statusCode >= 400));
    raw.once('close', () => void settle(raw.writableFinished !== true || raw.statusCode >= 400));
  }
}

/** The settle function the guard registered for this request, if any; removed so it runs once. */
export function takeSettle(context: ExecutionContext): SettleOutcome | undefined {
  const carrier = carrierOf(context);
  const settle = carrier && pending.get(carrier);
  if (settle) pending.delete(carrier);
  return settle || undefined;
}
