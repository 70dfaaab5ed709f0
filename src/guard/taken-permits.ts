import { Logger } from '@nestjs/common';
import { Decision } from '../algorithms/decision';
import { RefundRequest } from '../algorithms/state-ops/state-ops.model';
import { DecisionGroup } from '../stores/decision-group';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { CompiledLimit } from './compiled-limit';

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

/**
 * The refund of what an acquire took: its permits, its own member (the sliding log), and
 * its reset time less the time since, by this process's clock, which tells a windowed
 * algorithm which window it counted in.
 */
export function refundRequestFor(taken: Taken, nowMs = performance.now()): RefundRequest {
  const request = taken.request as { permits?: number; id?: string } | undefined;
  return {
    permits: request?.permits ?? 1,
    id: request?.id,
    resetLeftMicros: (taken.decision.resetMs - (nowMs - taken.atMs)) * 1000,
  };
}

/**
 * Gives back what allowed limits took for a request that will not run (DESIGN §9, all or
 * nothing), where the store has not already undone it inside the decision (a
 * {@link DecisionGroup} on standalone Redis, on the one Cluster node serving every key, or in
 * memory) or never sent it (a member denied from the denial cache): each limit's refund, all
 * at once (on a Cluster whose nodes share the keys). Concurrency slots are released by the
 * guard.
 * Never rejects: the store's policy layer answers null on failure, and a refund that could
 * not be made leaves the permits to expire with their window.
 */
export async function giveBack(
  store: FailurePolicyStore,
  taken: readonly Taken[],
  logger: Logger,
): Promise<void> {
  const refunds = taken.filter(
    (t) => t.decision.allowed && t.limit.ops?.refund && !t.group?.undone.has(t.key),
  );
  if (refunds.length === 0) return;
  const nowMs = performance.now();
  await Promise.all(
    refunds.map(async (t) => {
      const refund = t.limit.ops!.refund!;
      const done = await store.decide(refund, t.key, t.limit.params, refundRequestFor(t, nowMs));
      if (!done) logger.warn(`Could not give back what ${t.limit.where} took for ${t.key}`);
    }),
  );
}
