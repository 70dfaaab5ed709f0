import { Decision, RawReply } from '../../contracts/decision';
import { decisionOf } from '../../algorithms/limiter-algorithm';
import type { EngineAlgorithm } from '../../algorithms/engine-algorithm';
import { StoreUnavailableError } from '../../errors/store-unavailable.error';
import { DecisionGroup } from '../../contracts/decision-group';
import type { DecisionCall } from '../../algorithms/decision-call';
import type { DenialBroadcast } from './denial-broadcast';
import type { DenialCache } from './denial-cache';
import type { EngineEntry, FixedFields } from './engine/entry';
import { StoreReplyError } from '../store-reply.error';
import { noteRedisTime } from './lease/redis-time';
import type { LeaseParams } from '../../algorithms/state-ops/lease-option';

/** A limit's script arguments, formatted once, and the name of the limit they make. */
export interface FixedArguments extends FixedFields {
  /** The algorithm they were made for. */
  algorithm: object;
  argv: readonly string[];
  /** The algorithm's index in the engine script (stable once given). */
  algorithmIndex: string;
}

/** What the store works out once for a decision on its way to the engine. */
interface DecisionRoute {
  fixed: FixedArguments;
  /** The denial scope, when denials are remembered (algorithm.denialScope). */
  scope: string | undefined;
  /** The app's clock in µs for Redis's `now`; '' for Redis's own. */
  time: string;
  /** How long after it is sent its caller waits (EngineEntry.patienceMs). */
  patienceMs: number;
  /** Its request's other limits, decided all or nothing. */
  group: DecisionGroup | undefined;
}

/** Where a decision's promise is settled. */
interface DecisionAnswer {
  resolve(decision: Decision): void;
  reject(error: unknown): void;
}

/** What a decision reports its answer to, shared by every decision of a store. */
export interface DecisionListeners {
  denials?: DenialCache;
  broadcast?: DenialBroadcast;
}

/**
 * One decision on its way to the engine: the entry the engine sends, and the promise it
 * answers. One object per decision, where closures would be several.
 */
export class RedisDecision<P, R> implements EngineEntry {
  packedArgv?: string;
  heldAtMs?: number = undefined;
  waitFromMs?: number = undefined;
  waitsFromWrite?: boolean = undefined;
  untilMs?: number = undefined;
  private sentAtMs = -Infinity;

  readonly key: string;
  readonly fixed: FixedArguments;
  readonly time: string;
  readonly requestArgv: readonly string[] | undefined;
  readonly patienceMs: number;
  readonly group: DecisionGroup | undefined;
  private readonly scope: string | undefined;

  constructor(
    private readonly listeners: DecisionListeners,
    /** The decision as the store was asked for it. */
    private readonly call: DecisionCall<P, R, unknown>,
    route: DecisionRoute,
    private readonly answer: DecisionAnswer,
  ) {
    this.key = call.key;
    this.requestArgv = call.algorithm.requestArgv?.(call.request);
    ({ fixed: this.fixed, scope: this.scope, time: this.time } = route);
    ({ patienceMs: this.patienceMs, group: this.group } = route);
  }

  get algorithmIndex(): string {
    return this.fixed.algorithmIndex;
  }

  sent(atMs: number): boolean {
    this.sentAtMs = atMs;
    const until = this.call.onSent?.(atMs);
    this.untilMs = typeof until === 'number' ? until : undefined;
    return until !== false;
  }

  settle(reply: readonly unknown[], base: number): void {
    try {
      const algorithm: EngineAlgorithm<P, R, unknown> = this.call.algorithm;
      const decision = decisionOf(algorithm, entryReply(reply, base), this.call.params);
      // Only a lease reads when Redis made a decision (lease-grant.ts): a WeakMap entry for
      // every other decision would cost each its insertion and the collector's work.
      if (leases(this.call.params)) noteRedisTime(decision, Number(reply[0]));
      const { denials, broadcast } = this.listeners;
      if (this.scope !== undefined) {
        denials?.remember(this.key, this.fixed.limitId, this.scope, decision, this.sentAtMs);
      } else if (algorithm.forgetsDenials && broadcast) {
        // Reset, refund, block: no server may keep answering from a stale denial.
        denials?.forget(this.key);
        return void broadcast.announce(this.key).then(() => this.answer.resolve(decision));
      }
      this.answer.resolve(decision);
    } catch (error) {
      this.fail(error);
    }
  }

  /**
   * The answer of a group member never sent, because another member was found denied
   * locally: it took nothing, so it is undone (nothing to give back). Its counts are unknown
   * and unchanged; the request is denied by the member that was.
   */
  withdraw(): void {
    const limit = this.call.algorithm.limit(this.call.params);
    this.group!.undone.add(this.key);
    this.answer.resolve({
      allowed: true,
      limit,
      remaining: limit,
      resetMs: 0,
      retryAfterMs: 0,
      waitMs: 0,
    });
  }

  fail(error: unknown): void {
    this.answer.reject(
      error instanceof StoreUnavailableError
        ? error
        : new StoreUnavailableError(
            `Redis failed to evaluate ${this.call.algorithm.commandName}`,
            error,
          ),
    );
  }
}

/** Whether a limit's parameters lease its permits (`lease: n`). */
function leases(params: unknown): boolean {
  return (params as LeaseParams | null | undefined)?.leasePermits !== undefined;
}

/** One entry of the engine's reply: a decision, or why there is none. */
function entryReply(reply: readonly unknown[], base: number): RawReply {
  const allowed = Number(reply[base]);
  if (allowed === -1) {
    throw new StoreUnavailableError('Redis skipped the decision: its caller had stopped waiting');
  }
  if (allowed === -2) throw new StoreReplyError(String(reply[base + 1]));
  const raw = [
    allowed,
    Number(reply[base + 1]),
    Number(reply[base + 2]),
    Number(reply[base + 3]),
    Number(reply[base + 4]),
  ] as const;
  for (let i = 0; i < 5; i++) {
    if (Number.isNaN(raw[i])) {
      throw new StoreUnavailableError(`Unexpected reply from the engine script: ${raw.join(',')}`);
    }
  }
  return raw;
}
