import type { Cluster, Redis } from 'ioredis';
import type { EngineEntry } from './entry';
import { LimiterAlgorithm } from '../../../algorithms/limiter-algorithm';
import { EngineCommands } from './commands';
import { TickBatcher } from './tick-batcher';
import { GroupArrivals, groupStarts, groupsTogether, withoutWithdrawn } from './groups';
import { packArgv } from './packing';
import { refusesCallForm } from './call-mode';
import { coalesced, decisionsOf } from './coalescing';
import { callArgs, startWaits, written } from './deadlines';
import { EngineReplies, refusedIn } from './reply';
import { bySlot, byNode, nodeOf } from './slot-routing';

/**
 * Engine calls in flight on one connection (one Cluster node) before new decisions wait for
 * one of them to return: the waiting decisions then leave together, so batches grow with
 * load. Chosen by measurement (BENCHMARKS.md).
 */
const MAX_CALLS_IN_FLIGHT = 2;

/**
 * Sends the decisions of each event-loop turn to Redis through the ioredis client, in as few
 * engine calls as the topology allows: one for a standalone or Sentinel client; on a Cluster
 * one per node, the engine declared `allow-cross-slot-keys` (Redis >= 7: keys of several
 * slots that one node serves). A Cluster older than that rejects the flag once, and from
 * then on gets one call per hash slot, sent to each node as one pipeline. A call, an FCALL
 * or an EVALSHA (commands.ts), is routed by its first key, which is on the node every
 * other key of the call is on.
 */
export class EngineClient {
  private readonly commands: EngineCommands;
  /** One batcher per connection: the standalone one, or one per Cluster node. */
  private readonly batchers = new Map<string, TickBatcher<EngineEntry>>();
  /** Answers the entries from each reply; Redis's clock; Redis's last reply. */
  private readonly replies = new EngineReplies((entry, last) =>
    this.batcherFor(entry.key).add(entry, last),
  );
  readonly clock = this.replies.clock;
  /**
   * Told the milliseconds and the number of decisions of each engine call that Redis
   * answered (metrics, the bench's batch sizes); none by default.
   */
  onCall?: (durationMs: number, decisions: number) => void;
  private readonly keyPrefix: string;
  /** The members of the group being added. */
  private readonly arrivals = new GroupArrivals();
  /** One call per hash slot, every key declared (call-mode.ts `'per-slot'`). */
  perSlot = false;
  /** Told when a call refused for its form turned the engine to per-slot calls. */
  onPerSlot?: (refusal: Error) => void;

  /** `performance.now()` of the last reply Redis gave, even an error reply. */
  get lastReplyAtMs(): number {
    return this.replies.lastReplyAtMs;
  }

  constructor(
    private readonly client: Redis | Cluster,
    private readonly maxBatchSize: number,
    /** With a `maxBatchSize` of 1 (batching off), no bound. */
    private readonly maxCallsInFlight = maxBatchSize > 1 ? MAX_CALLS_IN_FLIGHT : Infinity,
  ) {
    this.commands = new EngineCommands(client);
    this.keyPrefix = (client.options as { keyPrefix?: string }).keyPrefix ?? '';
  }

  /** The batcher of the connection `key` goes to: on a Cluster, its node's. */
  private batcherFor(key: string): TickBatcher<EngineEntry> {
    const node = nodeOf(this.client, this.keyPrefix, key);
    let batcher = this.batchers.get(node);
    if (!batcher) {
      batcher = new TickBatcher(
        this.maxBatchSize,
        (entries) => this.sendLive(entries),
        this.maxCallsInFlight,
        (queue, from) => {
          const atMs = this.clock.localMs();
          for (let i = from; i < queue.length; i++) queue[i].heldAtMs = atMs;
        },
      );
      this.batchers.set(node, batcher);
    }
    return batcher;
  }

  /** Sends the entries still wanted; settles once every call of them is answered. */
  private sendLive(entries: EngineEntry[]): Promise<unknown> | undefined {
    // A store whose check() did not run yet: the library loads while batches go as scripts.
    void this.commands.prepare();
    // Sent from setImmediate or a reply: a synchronous throw would be an uncaught exception.
    const live = startWaits(
      withoutWithdrawn(entries),
      this.clock.localMs(),
      this.replies.lastReplyAtMs,
    );
    if (live.length === 0) return undefined;
    try {
      // A hot key's decisions as one entry each; their answers split as each is settled.
      return this.send(coalesced(live));
    } catch (error) {
      this.replies.fail(live, error);
      return undefined;
    }
  }

  /** The algorithm's index, adding a custom algorithm to the engine on first use. */
  indexOf(algorithm: LimiterAlgorithm<any, any, any>): string {
    return this.commands.indexOf(algorithm);
  }

  /** What a probe found of Functions (FUNCTION and FCALL answered): FCALL or EVALSHA follows. */
  followFunctions(functions: boolean | undefined): void {
    this.commands.functions.follow(functions);
  }

  /** Throws for an entry whose fields cannot be packed (a NUL in them): it alone fails. */
  add(entry: EngineEntry): void {
    entry.packedArgv = packArgv(entry.fixed, entry.requestArgv);
    // A group's members arrive one after another: the batch stays open until the last.
    const group = entry.group;
    this.batcherFor(entry.key).add(entry, !group || this.arrivals.count(group) === group.size);
  }

  /**
   * Loads the engine library (or finds Functions refused: then scripts), then runs the engine
   * on no entries: proves it can run (ACL) and samples the clock.
   */
  async check(): Promise<void> {
    await this.commands.prepare();
    await this.call(this.client, []);
  }

  /** Settles once every call of `entries` is answered (or failed). */
  private send(entries: EngineEntry[]): Promise<unknown> {
    if (!this.client.isCluster) {
      if (this.perSlot) return this.sendToNode(this.client, this.perSlotCalls(entries));
      return this.call(this.client, entries).catch((error: unknown) =>
        this.perSlotAfter(error, this.client, entries),
      );
    }
    const cluster = this.client as Cluster;
    const pending: Promise<unknown>[] = [];
    for (const calls of byNode(cluster, bySlot(entries, this.keyPrefix)).values()) {
      pending.push(
        this.commands.crossSlot && !this.perSlot && calls.length > 1
          ? this.sendCrossSlot(cluster, calls.flat())
          : this.sendToNode(cluster, calls),
      );
    }
    return pending.length === 1 ? pending[0] : Promise.all(pending);
  }

  /** One call per hash slot. */
  private perSlotCalls(entries: readonly EngineEntry[]): EngineEntry[][] {
    return [...bySlot(entries, this.keyPrefix).values()];
  }

  /** One node's entries in one call; per slot again if this Cluster refuses script flags. */
  private sendCrossSlot(cluster: Cluster, bySlot: EngineEntry[]): Promise<unknown> {
    // A group whose keys this node serves is decided together, as on a standalone Redis.
    const entries = groupsTogether(bySlot);
    return this.call(cluster, entries, this.commands.crossSlot).catch((error: unknown) =>
      this.perSlotAfter(error, cluster, entries),
    );
  }

  /**
   * A call refused for its form (call-mode.ts) ran nothing: the engine turns to per-slot
   * calls and sends its entries again. Any other error fails them.
   */
  private perSlotAfter(error: unknown, target: Redis | Cluster, entries: EngineEntry[]) {
    if (!refusesCallForm(error)) return this.replies.fail(entries, error);
    if (!this.perSlot) {
      this.perSlot = true;
      this.onPerSlot?.(error as Error);
    }
    return this.sendToNode(target, this.perSlotCalls(entries));
  }

  /** One connection's calls: alone as a command, or together as one pipeline. */
  private sendToNode(target: Redis | Cluster, calls: EngineEntry[][]): Promise<unknown> {
    if (calls.length === 1) {
      return this.call(target, calls[0]).catch((error: unknown) =>
        this.replies.fail(calls[0], error),
      );
    }
    const args = calls.map((entries) => callArgs(entries, this.clock));
    const { engine, fcall, results: replies } = this.commands.pipeline(target, args);
    const sentAtMs = performance.now();
    for (const entries of calls) written(entries, sentAtMs);
    const pending: Promise<unknown>[] = [];
    return replies
      .then(
        (results) => {
          calls.forEach((entries, i) => {
            this.observe(sentAtMs, decisionsOf(entries));
            const [error, reply] = results?.[i] ?? [new Error('no reply in the pipeline'), null];
            // The library missing, or FCALL refused: nothing ran, it goes again as it can.
            if (fcall && error && this.commands.functions.ranNothing(error, engine)) {
              pending.push(
                this.call(target, entries).catch((e: unknown) => this.replies.fail(entries, e)),
              );
            } else if (error) this.replies.fail(entries, error);
            else this.replies.settle(entries, reply);
          });
        },
        (error: unknown) => calls.forEach((entries) => this.replies.fail(entries, error)),
      )
      .then(() => Promise.all(pending));
  }

  private call(
    target: Redis | Cluster,
    entries: EngineEntry[],
    engine = this.commands.engine,
  ): Promise<unknown> {
    // Every entry of a call is on one node: a group found whole in it is decided together.
    // A group split over several calls (its keys on several Cluster nodes) is not: its
    // caller gives back what the allowed members took.
    const starts = groupStarts(entries);
    let args = callArgs(entries, this.clock, starts);
    // script.ts: the first key declared, then every key at the head of ARGV.
    if (engine.crossSlot) args = ['1', entries[0].key, ...args];
    const sentAtMs = performance.now();
    const answered = this.commands.call(target, args, engine);
    written(entries, performance.now());
    return answered.then((reply) => {
      // The start-up check (no entries) is no decision's call.
      if (entries.length > 0) this.observe(sentAtMs, decisionsOf(entries));
      // Keys passed as arguments that the endpoint would not let the script touch.
      const refused = engine.crossSlot ? refusedIn(entries, reply) : undefined;
      this.replies.settle(entries, reply, starts, refused);
      if (refused) {
        const again = entries.filter((_, i) => refused.has(i));
        return this.perSlotAfter(new Error(refused.values().next().value!), target, again);
      }
    });
  }

  /** Reports an engine call of `decisions` answered; an observer's error is dropped. */
  private observe(sentAtMs: number, decisions: number): void {
    if (!this.onCall) return;
    try {
      this.onCall(performance.now() - sentAtMs, decisions);
    } catch {
      // Metrics must never fail a decision.
    }
  }
}
