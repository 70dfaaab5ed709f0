import type { Cluster, Redis } from 'ioredis';
import { LimiterAlgorithm } from '../../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../../errors/store-unavailable.error';
import { clusterSlot } from './cluster-slot';
import { BUILT_IN_ENGINE, EngineScript } from './engine-script';
import { RedisClock } from './redis-clock';
import { TickBatcher } from './tick-batcher';

/** One decision waiting for the engine: its fields of the script's ARGV, and its callbacks. */
export interface EngineEntry {
  key: string;
  /** The algorithm's index in the engine script. */
  algorithm: string;
  /** The time in µs, or '' for Redis TIME. */
  time: string;
  fixedArgv: readonly string[];
  requestArgv: readonly string[] | undefined;
  /** `performance.now()` after which nobody waits for the answer; Infinity for no limit. */
  deadlineMs: number;
  /** The entry's reply: 5 values of `reply` from `base`. */
  settle(reply: readonly unknown[], base: number): void;
  fail(error: unknown): void;
}

type EngineCommand = (...args: string[]) => Promise<unknown>;
type Commands = Record<string, EngineCommand | undefined>;
type ExecResult = [Error | null, unknown][] | null;

/**
 * Sends the decisions of each event-loop turn to Redis through the ioredis client, in as few
 * script calls as the topology allows: one EVALSHA of the engine script for a standalone or
 * Sentinel client; on a Cluster one per hash slot (a script may touch one slot only), sent
 * to each node as one pipeline. ioredis `defineCommand` gives EVALSHA and the reload on
 * NOSCRIPT.
 */
export class EngineClient {
  private engine: EngineScript = BUILT_IN_ENGINE;
  private readonly batcher: TickBatcher<EngineEntry>;
  readonly clock = new RedisClock();
  /** `performance.now()` of the last reply Redis gave, even an error reply. */
  lastReplyAtMs = -Infinity;

  constructor(
    private readonly client: Redis | Cluster,
    maxBatchSize: number,
  ) {
    this.define(this.engine);
    this.batcher = new TickBatcher(maxBatchSize, (entries) => this.send(entries));
  }

  /** The algorithm's index, adding a custom algorithm to the engine on first use. */
  indexOf(algorithm: LimiterAlgorithm<any, any, any>): string {
    let index = this.engine.indexOf(algorithm);
    if (index === undefined) {
      this.engine = this.engine.including(algorithm);
      this.define(this.engine);
      index = this.engine.indexOf(algorithm)!;
    }
    return index;
  }

  add(entry: EngineEntry): void {
    this.batcher.add(entry);
  }

  /** Runs the engine on no entries: proves the scripts can run (ACL) and samples the clock. */
  async check(): Promise<void> {
    await this.call(this.client, []);
  }

  private define(engine: EngineScript): void {
    if (typeof (this.client as unknown as Commands)[engine.commandName] !== 'function') {
      this.client.defineCommand(engine.commandName, { lua: engine.lua });
    }
  }

  private send(entries: EngineEntry[]): void {
    if (!this.client.isCluster) {
      this.call(this.client, entries).catch((error: unknown) => this.fail(entries, error));
      return;
    }
    const cluster = this.client as Cluster;
    const prefix = (cluster.options as { keyPrefix?: string }).keyPrefix ?? '';
    const bySlot = new Map<number, EngineEntry[]>();
    for (const entry of entries) {
      const slot = clusterSlot(prefix + entry.key);
      const group = bySlot.get(slot);
      if (group) group.push(entry);
      else bySlot.set(slot, [entry]);
    }
    const byNode = new Map<string, EngineEntry[][]>();
    for (const [slot, group] of bySlot) {
      const node = cluster.slots[slot]?.[0] ?? `slot ${slot}`;
      const calls = byNode.get(node);
      if (calls) calls.push(group);
      else byNode.set(node, [group]);
    }
    for (const calls of byNode.values()) this.sendToNode(cluster, calls);
  }

  /** One node's scripts: alone as a command, or together as one pipeline. */
  private sendToNode(cluster: Cluster, calls: EngineEntry[][]): void {
    if (calls.length === 1) {
      this.call(cluster, calls[0]).catch((error: unknown) => this.fail(calls[0], error));
      return;
    }
    const pipeline = cluster.pipeline();
    for (const entries of calls) {
      (pipeline as unknown as Commands)[this.engine.commandName]!(...this.args(entries));
    }
    (pipeline.exec() as Promise<ExecResult>).then(
      (results) => {
        calls.forEach((entries, i) => {
          const [error, reply] = results?.[i] ?? [new Error('no reply in the pipeline'), null];
          if (error) this.fail(entries, error);
          else this.settle(entries, reply);
        });
      },
      (error: unknown) => calls.forEach((entries) => this.fail(entries, error)),
    );
  }

  private call(target: Redis | Cluster, entries: EngineEntry[]): Promise<void> {
    const command = (target as unknown as Commands)[this.engine.commandName]!;
    return command.apply(target, this.args(entries)).then((reply) => this.settle(entries, reply));
  }

  /** KEYS, then the batch's deadline, then each entry's fields (engine.lua's header). */
  private args(entries: EngineEntry[]): string[] {
    const args: string[] = [String(entries.length)];
    let deadlineMs = Infinity;
    for (const entry of entries) {
      args.push(entry.key);
      if (entry.deadlineMs < deadlineMs) deadlineMs = entry.deadlineMs;
    }
    args.push(this.clock.deadline(deadlineMs));
    for (const entry of entries) {
      const request = entry.requestArgv;
      const count = entry.fixedArgv.length + (request ? request.length : 0);
      args.push(entry.algorithm, entry.time, String(count), ...entry.fixedArgv);
      if (request) args.push(...request);
    }
    return args;
  }

  private settle(entries: EngineEntry[], reply: unknown): void {
    const receivedAt = this.clock.localMs();
    this.lastReplyAtMs = receivedAt;
    if (!Array.isArray(reply) || reply.length !== 1 + 5 * entries.length) {
      const error = new StoreUnavailableError(`Unexpected reply from the engine script`);
      return this.fail(entries, error);
    }
    this.clock.sample(Number(reply[0]), receivedAt);
    for (let i = 0; i < entries.length; i++) entries[i].settle(reply, 1 + 5 * i);
  }

  /** Fails every entry; an error reply (NOPERM...) still proves that Redis answers. */
  private fail(entries: readonly EngineEntry[], error: unknown): void {
    if ((error as Error | undefined)?.name === 'ReplyError') {
      this.lastReplyAtMs = this.clock.localMs();
    }
    for (const entry of entries) entry.fail(error);
  }
}
