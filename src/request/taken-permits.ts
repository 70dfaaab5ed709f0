import { Logger } from '@nestjs/common';
import { Decision } from '../contracts/decision';
import { RefundRequest } from '../algorithms/state-ops/state-ops.model';
import { DecisionGroup } from '../contracts/decision-group';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { maxCharge } from '../algorithms/permits';
import { CompiledLimit } from '../compile/compiled-limit';

/** What one limit took for a request: enough to give it back. */
export interface Taken {
  limit: CompiledLimit;
  key: string;
  request: unknown;
  decision: Decision;
  /** performance.now() when the decision arrived. */
  atMs: number;
  /** The request's limits decided all or nothing, when there are several. */
  group?: DecisionGroup;
}

/** The permits an acquire took: its request's, 1 for an algorithm whose requests have none. */
export function reservedPermits(taken: Taken): number {
  return (taken.request as { permits?: number } | undefined)?.permits ?? 1;
}

/**
 * The refund of what an acquire took (or `permits` of it): its own member (the sliding log),
 * and its reset time less the time since, by this process's clock, which tells a windowed
 * algorithm which window it counted in.
 */
function refundRequestFor(
  taken: Taken,
  nowMs = performance.now(),
  permits = reservedPermits(taken),
): RefundRequest {
  const request = taken.request as { id?: string } | undefined;
  return {
    permits,
    id: request?.id,
    resetLeftMicros: (taken.decision.resetMs - (nowMs - taken.atMs)) * 1000,
  };
}

/**
 * Gives back what allowed limits took for a request that will not run (all or
 * nothing), where the store has not already undone it inside the decision (a
 * {@link DecisionGroup} on standalone Redis, on the one Cluster node serving every key, or in
 * memory) or never sent it (a member denied from the denial cache): each limit's refund, all
 * at once (on a Cluster whose nodes share the keys). Concurrency slots are released by the
 * guard.
 * Never rejects: the store's policy layer answers null on failure, and a refund that could
 * not be made leaves the permits to expire with their window.
 */
export function giveBack(
  store: FailurePolicyStore,
  taken: readonly Taken[],
  logger: Logger,
): Promise<void> {
  const refunds = taken.filter((t) => !t.group?.undone.has(t.key));
  return correctTaken(
    store,
    refunds,
    refunds.map(() => 0),
    logger,
  );
}

/**
 * Corrects what each allowed limit took to `kept[i]` permits: its refund gives back the
 * difference, its charge takes the excess (into debt if need be, at most {@link maxCharge}
 * beyond what it took, the same on every store). Neither is ever refused,
 * so every correction applies; they are sent in one turn, so on a standalone or Sentinel
 * Redis they travel in one engine call (no decision runs between them), on Cluster one per
 * node. A limit without the operation it would need keeps what it took.
 * Never rejects: the store's policy layer answers null on failure, and a correction that
 * could not be made is logged (refunded permits then expire with their window).
 */
export async function correctTaken(
  store: FailurePolicyStore,
  taken: readonly Taken[],
  kept: readonly number[],
  logger: Logger,
): Promise<void> {
  const nowMs = performance.now();
  const corrections: Promise<void>[] = [];
  taken.forEach((t, i) => {
    if (!t.decision.allowed) return;
    const difference = kept[i] - reservedPermits(t);
    const op = difference < 0 ? t.limit.ops?.refund : t.limit.ops?.charge;
    if (difference === 0 || !op) return;
    const { algorithm, params, windowSeconds, partition } = t.limit;
    const permits =
      difference < 0
        ? -difference
        : Math.min(difference, maxCharge(algorithm.limit(params), windowSeconds));
    const request = refundRequestFor(t, nowMs, permits);
    corrections.push(
      store.decide({ algorithm: op, key: t.key, params, partition, request }).then((done) => {
        const what = difference < 0 ? 'give back' : 'charge';
        if (!done)
          logger.warn(`Could not ${what} ${request.permits} of ${t.limit.where} for ${t.key}`);
      }),
    );
  });
  await Promise.all(corrections);
}
