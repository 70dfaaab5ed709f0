import type { Cluster, Redis } from 'ioredis';
import type { EngineEntry } from './engine-entry';
import { LimiterAlgorithm } from '../../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../../errors/store-unavailable.error';
import { clusterSlot } from './cluster-slot';
import { BUILT_IN_ENGINE, EngineScript } from './engine-script';
import { EngineFunctions, FUNCTION_NOT_FOUND } from './engine-functions';
import { RedisClock } from './redis-clock';
import { TickBatcher } from './tick-batcher';
import { DecisionGroup } from '../../contracts/decision-group';
import { groupStarts, groupsTogether, withoutWithdrawn } from './engine-groups';
import { packArgv, packEntries, unpackReply } from './engine-packing';
import { refusedEntries, refusesCallForm } from './call-mode';
import {
  coalesced,
  decisionEntries,
  decisionsOf,
  perDecision,
  replyBases,
} from './engine-coalescing';

type EngineCommand = (...args: string[]) => Promise<unknown>;
type Commands = Record<string, EngineCommand | undefined>;
type ExecResult = [Error | null, unknown][] | null;

/** An entry's first value when the engine skipped it past the batch's deadline (engine.lua). */
const SKIPPED = -1;

/**
 * Engine calls in flight on one connection (one Cluster node) before new decisions wait for
 * one of them to return: the waiting decisions then leave together, so batches grow with
 * load. Chosen by measurement (BENCHMARKS.md).
 */
export const MAX_CALLS_IN_FLIGHT = 2;

/**
 * Sends the decisions of each event-loop turn to Redis through the ioredis client, in as few
 * engine calls as the topology allows: one for a standalone or Sentinel client; on a Cluster
 * one per node, the engine declared `allow-cross-slot-keys` (Redis >= 7: keys of several
 * slots that one node serves). A Cluster older than that rejects the flag once, and from
 * then on gets one call per hash slot, sent to each node as one pipeline. A call is an FCALL
 * of the engine library where Redis has Functions (engine-functions.ts), else an EVALSHA:
 * ioredis `defineCommand` gives EVALSHA and the reload on NOSCRIPT. Either is routed by its
 * first key, which is on the node every other key of the call is on.
 */
export class EngineClient {
  private engine: EngineScript = BUILT_IN_ENGINE;
  /** The engine for one call per Cluster node; dropped when the Cluster refuses its flag. */
  private crossSlotEngine?: EngineScript;
  /** One batcher per connection: the standalone one, or one per Cluster node. */
  private readonly batchers = new Map<string, TickBatcher<EngineEntry>>();
  readonly clock = new RedisClock();
  /** `performance.now()` of the last reply Redis gave, even an error reply. */
  lastReplyAtMs = -Infinity;
  /**
   * Told the milliseconds and the number of decisions of each engine call that Redis
   * answered (metrics, the bench's batch sizes); none by default.
   */
  onCall?: (durationMs: number, decisions: number) => void;
  private readonly keyPrefix: string;
  private readonly functions: EngineFunctions;
  /** Entries sent again after Redis skipped them as late (sendAgain): never a third time. */
  private readonly sentAgain = new WeakSet<EngineEntry>();
  /** One call per hash slot, every key declared (call-mode.ts `'per-slot'`). */
  perSlot = false;
  /** Told when a call refused for its form turned the engine to per-slot calls. */
  onPerSlot?: (refusal: Error) => void;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly maxBatchSize: number,
    /** With a `maxBatchSize` of 1 (batching off), no bound. */
    private readonly maxCallsInFlight = maxBatchSize > 1 ? MAX_CALLS_IN_FLIGHT : Infinity,
  ) {
    this.define(this.engine);
    this.functions = new EngineFunctions(client);
    this.keyPrefix = (client.options as { keyPrefix?: string }).keyPrefix ?? '';
    if (client.isCluster) {
      this.crossSlotEngine = this.engine.forCrossSlot();
      this.define(this.crossSlotEngine);
    }
  }

  /** The batcher of the connection `key` goes to: on a Cluster, its node's. */
  private batcherFor(key: string): TickBatcher<EngineEntry> {
    const node = this.client.isCluster
      ? ((this.client as Cluster).slots[clusterSlot(this.keyPrefix + key)]?.[0] ?? '')
      : '';
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
    void this.functions.prepare(this.engine);
    // Sent from setImmediate or a reply: a synchronous throw would be an uncaught exception.
    const live = this.wanted(withoutWithdrawn(entries));
    if (live.length === 0) return undefined;
    try {
      // A hot key's decisions as one entry each; their answers split as each is settled.
      return this.send(coalesced(live));
    } catch (error) {
      this.fail(live, error);
      return undefined;
    }
  }

  /**
   * Tells each entry it is sent: its caller's wait starts, and so does its deadline. The wait
   * of an entry held behind calls in flight started at the end of its turn, unless Redis has
   * answered since (then the calls it waited for were Redis at work, not Redis silent: the
   * wait starts now, as a busy app's own delays never count). An entry whose caller stopped
   * waiting is failed instead, with the rest of its group, and changes nothing.
   */
  private wanted(entries: EngineEntry[]): EngineEntry[] {
    const nowMs = this.clock.localMs();
    let late: Set<EngineEntry | DecisionGroup> | undefined;
    for (const entry of entries) {
      const held = entry.heldAtMs;
      const fromMs = held !== undefined && this.lastReplyAtMs < held ? held : nowMs;
      entry.waitFromMs = fromMs;
      if (entry.sent && !entry.sent(fromMs)) (late ??= new Set()).add(entry.group ?? entry);
    }
    if (!late) return entries;
    const error = new StoreUnavailableError('the decision waited past its deadline: not sent');
    return entries.filter((entry) => {
      if (!late.has(entry.group ?? entry)) return true;
      entry.fail(error);
      return false;
    });
  }

  /** The algorithm's index, adding a custom algorithm to the engine on first use. */
  indexOf(algorithm: LimiterAlgorithm<any, any, any>): string {
    let index = this.engine.indexOf(algorithm);
    if (index === undefined) {
      this.engine = this.engine.including(algorithm);
      this.define(this.engine);
      if (this.crossSlotEngine) {
        this.crossSlotEngine = this.engine.forCrossSlot();
        this.define(this.crossSlotEngine);
      }
      index = this.engine.indexOf(algorithm)!;
    }
    return index;
  }

  /** Throws for an entry whose fields cannot be packed (a NUL in them): it alone fails. */
  add(entry: EngineEntry): void {
    entry.packedArgv = packArgv(entry.fixed, entry.requestArgv);
    // A group's members arrive one after another: the batch stays open until the last.
    const group = entry.group;
    this.batcherFor(entry.key).add(entry, !group || this.pendingOf(group) === group.size);
  }

  /** How many members of `group` were added since its first (its members come together). */
  private pendingOf(group: DecisionGroup): number {
    if (this.openGroup !== group) {
      this.openGroup = group;
      this.openCount = 0;
    }
    return ++this.openCount;
  }

  private openGroup?: DecisionGroup;
  private openCount = 0;

  /**
   * Loads the engine library (or finds Functions refused: then scripts), then runs the engine
   * on no entries: proves it can run (ACL) and samples the clock.
   */
  async check(): Promise<void> {
    await this.functions.prepare(this.engine);
    await this.call(this.client, []);
  }

  private define(engine: EngineScript): void {
    if (typeof (this.client as unknown as Commands)[engine.commandName] !== 'function') {
      this.client.defineCommand(engine.commandName, { lua: engine.lua });
    }
  }

  /** Settles once every call of `entries` is answered (or failed). */
  private send(entries: EngineEntry[]): Promise<unknown> {
    if (!this.client.isCluster) {
      if (this.perSlot) return this.sendToNode(this.client, [...this.bySlot(entries).values()]);
      return this.call(this.client, entries).catch((error: unknown) =>
        this.perSlotAfter(error, this.client, entries),
      );
    }
    const cluster = this.client as Cluster;
    const bySlot = this.bySlot(entries);
    const byNode = new Map<string, EngineEntry[][]>();
    for (const [slot, group] of bySlot) {
      const node = cluster.slots[slot]?.[0] ?? `slot ${slot}`;
      const calls = byNode.get(node);
      if (calls) calls.push(group);
      else byNode.set(node, [group]);
    }
    const pending: Promise<unknown>[] = [];
    for (const calls of byNode.values()) {
      pending.push(
        this.crossSlotEngine && !this.perSlot && calls.length > 1
          ? this.sendCrossSlot(cluster, calls.flat())
          : this.sendToNode(cluster, calls),
      );
    }
    return pending.length === 1 ? pending[0] : Promise.all(pending);
  }

  /** The entries by hash slot, each slot's in their order. */
  private bySlot(entries: readonly EngineEntry[]): Map<number, EngineEntry[]> {
    const bySlot = new Map<number, EngineEntry[]>();
    for (const entry of entries) {
      const slot = clusterSlot(this.keyPrefix + entry.key);
      const group = bySlot.get(slot);
      if (group) group.push(entry);
      else bySlot.set(slot, [entry]);
    }
    return bySlot;
  }

  /** One node's entries in one call; per slot again if this Cluster refuses script flags. */
  private sendCrossSlot(cluster: Cluster, bySlot: EngineEntry[]): Promise<unknown> {
    // A group whose keys this node serves is decided together, as on a standalone Redis.
    const entries = groupsTogether(bySlot);
    return this.call(cluster, entries, this.crossSlotEngine).catch((error: unknown) =>
      this.perSlotAfter(error, cluster, entries),
    );
  }

  /**
   * A call refused for its form (call-mode.ts) ran nothing: the engine turns to per-slot
   * calls and sends its entries again. Any other error fails them.
   */
  private perSlotAfter(error: unknown, target: Redis | Cluster, entries: EngineEntry[]) {
    if (!refusesCallForm(error)) return this.fail(entries, error);
    if (!this.perSlot) {
      this.perSlot = true;
      this.onPerSlot?.(error as Error);
    }
    return this.sendToNode(target, [...this.bySlot(entries).values()]);
  }

  /** One connection's calls: alone as a command, or together as one pipeline. */
  private sendToNode(target: Redis | Cluster, calls: EngineEntry[][]): Promise<unknown> {
    if (calls.length === 1) {
      return this.call(target, calls[0]).catch((error: unknown) => this.fail(calls[0], error));
    }
    const pipeline = target.pipeline();
    const engine = this.engine;
    const fcall = this.functions.uses(engine);
    for (const entries of calls) {
      const args = this.args(entries);
      if (fcall) pipeline.call('FCALL', engine.functionName, ...args);
      else (pipeline as unknown as Commands)[engine.commandName]!(...args);
    }
    const sentAtMs = performance.now();
    const pending: Promise<unknown>[] = [];
    return (pipeline.exec() as Promise<ExecResult>)
      .then(
        (results) => {
          calls.forEach((entries, i) => {
            this.observe(sentAtMs, decisionsOf(entries));
            const [error, reply] = results?.[i] ?? [new Error('no reply in the pipeline'), null];
            if (fcall && FUNCTION_NOT_FOUND.test(error?.message ?? '')) {
              this.functions.lost(engine);
              pending.push(this.call(target, entries).catch((e: unknown) => this.fail(entries, e)));
            } else if (error) this.fail(entries, error);
            else this.settle(entries, reply);
          });
        },
        (error: unknown) => calls.forEach((entries) => this.fail(entries, error)),
      )
      .then(() => Promise.all(pending));
  }

  private call(
    target: Redis | Cluster,
    entries: EngineEntry[],
    engine = this.engine,
  ): Promise<unknown> {
    // Every entry of a call is on one node: a group found whole in it is decided together.
    // A group split over several calls (its keys on several Cluster nodes) is not: its
    // caller gives back what the allowed members took.
    const starts = groupStarts(entries);
    let args = this.args(entries, starts);
    // engine-script.ts: the first key declared, then every key at the head of ARGV.
    if (engine.crossSlot) args = ['1', entries[0].key, ...args];
    const sentAtMs = performance.now();
    const script = () => (target as unknown as Commands)[engine.commandName]!.apply(target, args);
    return this.functions.call(target, engine, args, script).then((reply) => {
      // The start-up check (no entries) is no decision's call.
      if (entries.length > 0) this.observe(sentAtMs, decisionsOf(entries));
      // Keys passed as arguments that the endpoint would not let the script touch.
      const refused = engine.crossSlot ? this.refusedIn(entries, reply) : undefined;
      this.settle(entries, reply, starts, refused);
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

  /**
   * KEYS, then the batch's deadline, then its entries packed in one string (engine.lua's
   * header). The deadline is the earliest of the callers': each one's wait started as its
   * entry was sent or held (wanted).
   */
  private args(entries: EngineEntry[], starts = new Map<number, number>()): string[] {
    const args: string[] = [String(entries.length)];
    const nowMs = this.clock.localMs();
    let deadlineMs = Infinity;
    for (const entry of entries) {
      args.push(entry.key);
      const until = (entry.waitFromMs ?? nowMs) + entry.waitMs;
      if (until < deadlineMs) deadlineMs = until;
    }
    args.push(this.clock.deadline(deadlineMs), packEntries(entries, starts));
    return args;
  }

  /** `except`: entries to leave unsettled (sent again). */
  private settle(
    entries: EngineEntry[],
    packed: unknown,
    starts?: Map<number, number>,
    except?: ReadonlyMap<number, string>,
  ): void {
    const receivedAt = this.clock.localMs();
    this.lastReplyAtMs = receivedAt;
    const reply = unpackReply(perDecision(packed, entries), decisionsOf(entries));
    if (!reply) {
      const error = new StoreUnavailableError(`Unexpected reply from the engine script`);
      return this.fail(entries, error);
    }
    this.clock.sample(Number(reply[0]), receivedAt);
    const bases = replyBases(entries);
    // A group with a denied member had its allowed members undone by the script.
    if (starts?.size)
      starts.forEach((size, first) => {
        const members = Array.from({ length: size }, (_, j) => first + j);
        if (!members.some((i) => Number(reply[bases[i]]) === 0)) return;
        for (const i of members) {
          if (Number(reply[bases[i]]) === 1) entries[i].group!.undone.add(entries[i].key);
        }
      });
    let skipped: EngineEntry[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      if (except?.has(i)) continue;
      const entry = entries[i];
      if (Number(reply[bases[i]]) === SKIPPED && !this.sentAgain.has(entry)) {
        (skipped ??= []).push(...decisionEntries(entry));
      } else entry.settle(reply, bases[i]);
    }
    if (skipped) this.sendAgain(skipped);
  }

  /**
   * The entries (by index) whose decisions failed because the endpoint refused a key they
   * touch, with the message; a coalesced entry's decisions fail together.
   */
  private refusedIn(entries: EngineEntry[], reply: unknown): Map<number, string> | undefined {
    const byDecision = refusedEntries(perDecision(reply, entries), decisionsOf(entries));
    if (!byDecision) return undefined;
    const bases = replyBases(entries);
    const refused = new Map<number, string>();
    entries.forEach((_, i) => {
      const message = byDecision.get((bases[i] - 1) / 5);
      if (message !== undefined) refused.set(i, message);
    });
    return refused.size > 0 ? refused : undefined;
  }

  /**
   * Entries Redis skipped because it ran them past their deadline (Redis's clock): Redis was
   * late, yet it answered, and the app read that answer before it judged its callers'
   * deadlines (a starved CPU delays both alike). Those whose callers still wait go again at
   * once, their wait counting from this send (wanted); the others fail there, unsent. Once
   * each: a Redis late twice in a row is left to the store-error policy.
   */
  private sendAgain(entries: EngineEntry[]): void {
    entries.forEach((entry, i) => {
      this.sentAgain.add(entry);
      entry.heldAtMs = undefined;
      // A group's members were skipped together: they go again together.
      const last = !entry.group || entries[i + 1]?.group !== entry.group;
      this.batcherFor(entry.key).add(entry, last);
    });
  }

  /** Fails every entry; an error reply (NOPERM...) still proves that Redis answers. */
  private fail(entries: readonly EngineEntry[], error: unknown): void {
    if ((error as Error | undefined)?.name === 'ReplyError') {
      this.lastReplyAtMs = this.clock.localMs();
    }
    for (const entry of entries) entry.fail(error);
  }
}
