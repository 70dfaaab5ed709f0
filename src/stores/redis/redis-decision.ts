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
  readonly requestArgv: readonly string[] | undefined;
  /** How long after it is sent its caller waits (EngineEntry.patienceMs). */
  readonly patienceMs: number;
  /** Its request's other limits, decided all or nothing. */
  readonly group: DecisionGroup | undefined;

  /**
   * Positional rather than objects of fields: one allocation per decision, the decision
   * itself. `fixed`: its limit's arguments; `scope`: its denial scope, when denials are
   * remembered (algorithm.denialScope); `time`: the app's clock in µs for Redis's `now`, ''
   * for Redis's own.
   */
  constructor(
    private readonly listeners: DecisionListeners,
    /** The decision as the store was asked for it. */
    private readonly call: DecisionCall<P, R, unknown>,
    readonly fixed: FixedArguments,
    private readonly scope: string | undefined,
    readonly time: string,
    private readonly resolve: (decision: Decision) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    this.key = call.key;
    this.requestArgv = call.algorithm.requestArgv?.(call.request);
    const { deadlineMs = Infinity, group } = call;
    this.patienceMs = deadlineMs === Infinity ? Infinity : deadlineMs - performance.now();
    this.group = group && group.size > 1 ? group : undefined;
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
      // An algorithm without a reader of its own reads the values only as it decides.
      const into = algorithm.decision ? [0, 0, 0, 0, 0] : SCRATCH;
      const decision = decisionOf(algorithm, entryReply(reply, base, into), this.call.params);
      // Only a lease reads when Redis made a decision (lease-grant.ts): a WeakMap entry for
      // every other decision would cost each its insertion and the collector's work.
      if (leases(this.call.params)) noteRedisTime(decision, Number(reply[0]));
      const { denials, broadcast } = this.listeners;
      if (this.scope !== undefined) {
        denials?.remember(this.key, this.fixed.limitId, this.scope, decision, this.sentAtMs);
      } else if (algorithm.forgetsDenials && broadcast) {
        // Reset, refund, block: no server may keep answering from a stale denial.
        denials?.forget(this.key);
        return void broadcast.announce(this.key).then(() => this.resolve(decision));
      }
      this.resolve(decision);
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
    this.resolve({
      allowed: true,
      limit,
      remaining: limit,
      resetMs: 0,
      retryAfterMs: 0,
      waitMs: 0,
    });
  }

  fail(error: unknown): void {
    this.reject(
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

/** The values of a reply that toDecision reads and keeps none of: one array for them all. */
const SCRATCH = [0, 0, 0, 0, 0];

/** One entry of the engine's reply, into `raw`: a decision's values, or why there is none. */
function entryReply(reply: readonly unknown[], base: number, raw: number[]): RawReply {
  const allowed = Number(reply[base]);
  if (allowed === -1) {
    throw new StoreUnavailableError('Redis skipped the decision: its caller had stopped waiting');
  }
  if (allowed === -2) throw new StoreReplyError(String(reply[base + 1]));
  raw[0] = allowed;
  for (let i = 1; i < 5; i++) raw[i] = Number(reply[base + i]);
  for (let i = 0; i < 5; i++) {
    if (Number.isNaN(raw[i])) {
      throw new StoreUnavailableError(`Unexpected reply from the engine script: ${raw.join(',')}`);
    }
  }
  return raw as unknown as RawReply;
}
