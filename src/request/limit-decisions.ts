import { ExecutionContext, HttpException, Logger } from '@nestjs/common';
import { Decision } from '../contracts/decision';
import { DecisionGroup } from '../contracts/decision-group';
import { FailurePolicyStore } from '../stores/failure/failure-policy.store';
import { CompiledLimit } from '../compile/compiled-limit';
import { GuardAnswer } from '../errors/guard-answer';
import { GuardedRequest } from '../context/http-context';
import { holdUntilDone, once, waitWhileConnected } from './concurrency-release';
import { settleAfterHandler } from './settlement';

/** nginx's status for a request whose client closed the connection before the answer. */
const CLIENT_CLOSED_REQUEST = 499;
import { giveBack, Taken } from './taken-permits';
import { RequestLedger, SlotRenewal } from './request-ledger';

/**
 * The store's side of RateLimitGuard: a request's limits decided (concurrently, one store
 * round trip each, all or nothing where the store can), and what they took given back or
 * held (concurrency slots) until the request's work is over.
 */
export class LimitDecisions {
  constructor(
    private readonly store: FailurePolicyStore,
    private readonly logger: Logger,
  ) {}

  /**
   * Each limit's decision, or null where the store could not answer (and no fallback did).
   * FailurePolicyStore turns every store failure into null or a fallback decision: never a
   * rejection, so no slot taken by one limit can be stranded by another limit's error.
   */
  decide(limits: readonly CompiledLimit[], keys: string[]): Promise<(Taken | null)[]> {
    if (limits.length === 1) {
      const [limit] = limits;
      const request = limit.newRequest();
      return this.send(limit, keys[0], request).then((decision) => [
        takenOf(limit, keys[0], request, decision),
      ]);
    }
    // A shadow limit never refuses, so it is no member: the others are sent first, together
    // (see taken-permits.ts).
    const members = limits.filter((limit) => !limit.shadow).length;
    const group = members > 1 ? new DecisionGroup(members) : undefined;
    const decided = new Array<Promise<Taken | null>>(limits.length);
    limits.forEach((limit, i) => {
      if (!limit.shadow) decided[i] = this.decideOne(limit, keys[i], group);
    });
    limits.forEach((limit, i) => {
      if (limit.shadow) decided[i] = this.decideOne(limit, keys[i]);
    });
    return Promise.all(decided);
  }

  /**
   * All or nothing: a request that will not run keeps nothing its limits gave it, slots
   * included. `slots` false leaves the slots alone (they went back when the client left).
   */
  async giveBack(outcomes: Taken[], slots = true): Promise<void> {
    if (!slots) {
      return giveBack(
        this.store,
        outcomes.filter((outcome) => !outcome.limit.holdsSlot),
        this.logger,
      );
    }
    this.releaseSlots(outcomes);
    await giveBack(this.store, outcomes, this.logger);
  }

  /**
   * An allowed request: its slots held until its work is over, its reservation waited for
   * (while its client stays), its `count` and `settle` left to settle after the handler.
   */
  admitAllowed(
    outcomes: Taken[],
    enforced: Taken[],
    context: ExecutionContext,
    read: GuardedRequest,
  ): boolean | Promise<boolean> {
    const { response } = read;
    this.holdSlots(outcomes, context, response);
    let waitMs = 0;
    for (const outcome of enforced) waitMs = Math.max(waitMs, outcome.decision.waitMs);
    if (!(waitMs > 0)) return this.admitted(outcomes, context, read);
    return waitWhileConnected(this.store.sleep(waitMs), response).then((stayed) => {
      if (stayed) return this.admitted(outcomes, context, read);
      // The client left while waiting for its slot: give the slot to the next request now,
      // and run no handler for nobody. (Its concurrency slots went back when it closed.)
      // Everything it took goes back, the token bucket's reservation included.
      void this.giveBack(outcomes, false);
      throw new GuardAnswer(new HttpException('Client Closed Request', CLIENT_CLOSED_REQUEST));
    });
  }

  /** An allowed request past its wait: its `count` and `settle` left to settle after the handler. */
  private admitted(outcomes: Taken[], context: ExecutionContext, read: GuardedRequest): true {
    settleAfterHandler(context, read.response, outcomes, this.store, this.logger, read);
    return true;
  }

  /**
   * Holds the request's concurrency slots until its work is over (concurrency-release.ts).
   * A WebSocket connection's work lasts as long as its socket, so it is also left their
   * renewal (connection-limits.ts): a lease bounds a slot whose holder died, not one whose
   * socket is open.
   */
  holdSlots(outcomes: Taken[], context: ExecutionContext, response: unknown): void {
    const held = outcomes.filter((outcome) => outcome.limit.holdsSlot && outcome.decision.allowed);
    if (held.length === 0) return;
    holdUntilDone(
      context,
      response,
      once(() => Promise.all(held.map((outcome) => this.release(outcome)))),
    );
    if (context.getType() === 'ws') RequestLedger.of(context)?.leave('renew', this.renewal(held));
  }

  /**
   * Sends each held slot's acquire again, under its id: an id in flight renews its lease
   * and keeps its slots. Refused, the slot is gone (its lease ended and another took it).
   */
  private renewal(held: Taken[]): SlotRenewal {
    const leaseMs = Math.min(...held.map((outcome) => outcome.limit.slotLeaseMs ?? Infinity));
    const renewOne = ({ limit, key, request }: Taken) =>
      this.store.decide({
        algorithm: limit.algorithm,
        key,
        params: limit.params,
        partition: limit.partition,
        request,
        label: limit.where,
        name: limit.name,
      });
    return {
      everyMs: leaseMs / 3,
      renew: async () => {
        const decisions = await Promise.all(held.map(renewOne));
        return decisions.every((decision) => decision === null || decision.allowed);
      },
    };
  }

  private decideOne(
    limit: CompiledLimit,
    key: string,
    group?: DecisionGroup,
  ): Promise<Taken | null> {
    const request = limit.newRequest();
    return this.send(limit, key, request, group).then((decision) =>
      takenOf(limit, key, request, decision, group),
    );
  }

  /** One limit's acquire, sent to the store: its decision, or null where it had none. */
  private send(
    limit: CompiledLimit,
    key: string,
    request: unknown,
    group?: DecisionGroup,
  ): Promise<Decision | null> {
    // A slot granted after storeTimeout would be held by nobody until its lease ends.
    const onLateAnswer = limit.holdsSlot
      ? (late: Decision) => {
          if (late.allowed) this.releaseQuietly({ limit, key, request, decision: late, atMs: 0 });
        }
      : undefined;
    return this.store.decide({
      algorithm: limit.algorithm,
      key,
      params: limit.params,
      partition: limit.partition,
      request,
      label: limit.where,
      onLateAnswer,
      group,
      name: limit.name,
      policy: limit.onStoreError,
    });
  }

  private releaseSlots(outcomes: Taken[]): void {
    for (const outcome of outcomes) {
      // An undone member holds no slot: the store put it back, or never sent it.
      if (!outcome.limit.holdsSlot || !outcome.decision.allowed) continue;
      if (!outcome.group?.undone.has(outcome.key)) this.releaseQuietly(outcome);
    }
  }

  /** A release nobody waits for; a failure leaves the slot to its lease. */
  private releaseQuietly(outcome: Taken): void {
    this.release(outcome).catch((error: unknown) =>
      this.logger.warn(
        `Could not release a slot of ${outcome.limit.where}: ${(error as Error)?.message ?? String(error)}`,
      ),
    );
  }

  private async release(outcome: Taken): Promise<void> {
    const release = outcome.limit.releaseRequest?.(outcome.request);
    if (release === undefined) return;
    await this.store.decide({
      algorithm: outcome.limit.algorithm,
      key: outcome.key,
      params: outcome.limit.params,
      partition: outcome.limit.partition,
      request: release,
    });
  }
}

/** What a limit took, with the time its decision arrived; null for no decision. */
function takenOf(
  limit: CompiledLimit,
  key: string,
  request: unknown,
  decision: Decision | null,
  group?: DecisionGroup,
): Taken | null {
  return decision ? { limit, key, request, decision, atMs: performance.now(), group } : null;
}
