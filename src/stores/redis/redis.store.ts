import type { Cluster, Redis } from 'ioredis';
import { Decision } from '../../contracts/decision';
import type { DecisionCall } from '../../algorithms/decision-call';
import { EngineAlgorithm, givesBack } from '../../algorithms/engine-algorithm';
import { DenialBroadcast } from './denial-broadcast';
import { DenialCache } from './denial-cache';
import { EngineClient } from './engine/client';
import { isEngineCall } from './engine/commands';
import { UnansweredCalls } from './engine/unanswered-calls';
import { RedisCallMode } from './engine/call-mode';
import { CallModeWatch } from './endpoint/call-mode-watch';
import { ConnectionWatch } from './endpoint/connection-watch';
import { ClusterCoverage } from './endpoint/cluster-coverage';
import { StoreUnavailableError } from '../../errors/store-unavailable.error';
import type { EndpointCompatibility } from './endpoint/endpoint-probe';
import { LimiterStore, toMicros } from '../limiter-store';
import { RedisDecision } from './redis-decision';
import { FixedArgumentsCache } from './fixed-arguments-cache';
import { LeaseBook } from './lease/lease-book';
import { announcementsTo } from './lease/lease-announcements';

/**
 * Most decisions in one engine script call. A bound, so that one call never holds Redis (and
 * its other clients) for long; the value was chosen by measurement (BENCHMARKS.md).
 */
const DEFAULT_MAX_BATCH_SIZE = 128;

/** @publicApi */
export interface RedisStoreOptions {
  /** An ioredis client: standalone, Sentinel or Cluster. */
  client: Redis | Cluster;
  /**
   * Clock in milliseconds. When given, scripts take the time as an argument instead of
   * calling Redis `TIME`: for tests that control time. Leave it out in production, so
   * every app server shares Redis's one clock. The fixed window is the exception: its
   * windows are Redis key expiries, so they follow Redis's real time whatever `now` says.
   */
  now?: () => number;
  /** Whether {@link close} disconnects the client; true only for a client the module created. */
  ownsClient?: boolean;
  /** Remember denials locally until their retry time (default true); see {@link DenialCache}. */
  cacheDenials?: boolean;
  /**
   * Most decisions sent in one script call (default 128). The decisions of one event-loop
   * turn travel together; `1` sends each decision as a script call of its own.
   */
  maxBatchSize?: number;
  /** How scripts are sent: `'auto'` (default), `'per-slot'` or `'cross-slot'` (call-mode.ts). */
  calls?: RedisCallMode;
}

/**
 * Limiter state in Redis, through the ioredis client alone. The decisions of one
 * event-loop turn go to Redis together, as one call of one engine (an FCALL of its Redis
 * Functions library, or EVALSHA where Redis has none) that runs each with its algorithm,
 * atomically and in order (on a Cluster, one call per node). Each
 * limit is one key, so any number of app servers share one exact limit.
 *
 * @example
 * ```ts
 * new RedisStore({ client: new Redis(process.env.REDIS_URL!) })
 * ```
 * @publicApi
 */
export class RedisStore extends LimiterStore {
  readonly client: Redis | Cluster;
  private readonly now?: () => number;
  private readonly ownsClient: boolean;
  readonly denials?: DenialCache;
  readonly broadcast?: DenialBroadcast;
  /** Each limit's parameters, formatted for the engine once. */
  private readonly arguments: FixedArgumentsCache;
  private readonly engine: EngineClient;
  private readonly callMode: CallModeWatch;
  private readonly connection: ConnectionWatch;
  /** On a Cluster: whether every slot has a master that answers (health). */
  private readonly coverage?: ClusterCoverage;
  /** Fails the engine calls a closed connection did not answer: ioredis would resend them. */
  private readonly unanswered: UnansweredCalls;
  /** This server's leases of hot keys' permits (`lease: n`), ended by resets heard. */
  private readonly leases = new LeaseBook(
    (call) => this.inRedis(call),
    (deadlineMs) => this.broadcast!.hearingBy(deadlineMs),
    (algorithm, params, perRequest) => this.arguments.of(algorithm, params, perRequest).limitId,
  );

  constructor(options: RedisStoreOptions) {
    super();
    this.client = options.client;
    this.now = options.now;
    this.ownsClient = options.ownsClient ?? false;
    // Every store announces its resets, refunds and blocks; one that remembers denials
    // listens for other servers' announcements, and so does one that leases.
    if (options.cacheDenials !== false) {
      this.denials = new DenialCache(options.now ?? performance.now.bind(performance));
    }
    this.broadcast = new DenialBroadcast(this.client, announcementsTo(this.denials, this.leases));
    const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new RangeError(
        `RedisStore: maxBatchSize must be an integer >= 1, got ${String(options.maxBatchSize)}`,
      );
    }
    this.engine = new EngineClient(this.client, maxBatchSize);
    this.arguments = new FixedArgumentsCache((algorithm) => this.engine.indexOf(algorithm));
    this.callMode = new CallModeWatch(this.client, this.engine, options.calls ?? 'auto');
    this.connection = new ConnectionWatch(this.client);
    if (this.client.isCluster) this.coverage = new ClusterCoverage(this.client as Cluster);
    this.unanswered = new UnansweredCalls(this.client, isEngineCall);
  }

  evaluate<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    const { key, request, group } = call;
    const algorithm: EngineAlgorithm<P, R, S> = call.algorithm;
    // A limit with `lease`: its permits leased by this server, outside all-or-nothing groups.
    const leased = group && group.size > 1 ? undefined : this.leases.decide(call);
    if (leased) return leased;
    const decided = this.inRedis(call);
    if (!algorithm.forgetsDenials || givesBack(algorithm, request)) return decided;
    // A reset or a block: what every server leased on the key is gone with its count.
    this.leases.drop(key);
    return decided.then((decision) => this.broadcast!.announceReset(key).then(() => decision));
  }

  /** The decision in Redis (through the denial cache): the engine's entry. */
  private inRedis<P, R, S>(call: DecisionCall<P, R, S>): Promise<Decision> {
    const { algorithm, key, params, request, group } = call;
    return new Promise<Decision>((resolve, reject) => {
      const fixed = this.arguments.of(algorithm, params, call.partition !== undefined);
      const scope = this.denials && algorithm.denialScope?.(request);
      if (scope !== undefined) {
        // Listening starts with the store (check()), or failing that with its first decision.
        void this.broadcast?.listen();
        const denied = this.broadcast?.listening && this.denials?.get(key, fixed.limitId, scope);
        if (denied) {
          // All or nothing: the request's other limits must take nothing, not even for the
          // moment it would take to give it back (others would find it taken).
          if (group) group.deniedLocally = true;
          return resolve(denied);
        }
      }
      const decision = new RedisDecision(
        this,
        call as DecisionCall<P, R, unknown>,
        fixed,
        scope,
        this.now ? String(toMicros(this.now())) : '',
        resolve,
        reject,
      );
      if (group?.deniedLocally) return decision.withdraw();
      this.engine.add(decision);
    });
  }

  /**
   * Tells `observer` the milliseconds and the number of decisions of every engine script
   * call Redis answers (the module records the milliseconds as `ratelimit.store.duration`);
   * undefined stops it.
   */
  observeEngineCalls(
    observer: ((durationMs: number, decisions: number) => void) | undefined,
  ): void {
    this.engine.onCall = observer;
  }

  override lastAnswerAtMs(): number {
    return this.engine.lastReplyAtMs;
  }

  /**
   * Runs the engine script on no decisions: rejects with NOPERM if the ACL user lacks it, and
   * on a Cluster when some slots have no master that answers (cluster-coverage.ts).
   * Starts listening to other servers' announcements, before any denial is remembered, and
   * resolves once that has begun (or was refused).
   */
  override async check(): Promise<void> {
    const listening = this.denials ? this.broadcast?.listen() : undefined;
    // Both listen before the check below opens the connection; the probe is not waited for.
    this.connection.start();
    this.coverage?.start();
    void this.callMode.start();
    await this.engine.check();
    await listening;
    // On a Cluster, one node answering says nothing of the slots of another.
    const uncovered = await this.coverage?.uncovered();
    if (uncovered) throw new StoreUnavailableError(uncovered);
  }

  /**
   * The engine run on no decisions alone (its library loaded, FCALL tried), without what
   * {@link check} starts besides: for a store that lives for one decision (the start-up check).
   * @internal
   */
  checkEngine(): Promise<void> {
    return this.engine.check();
  }

  /** A connection that was lost and is being retried; a first connection is waited for. */
  override isUnavailable(): boolean {
    const status = this.client.status;
    return status === 'reconnecting' || status === 'end' || status === 'close';
  }

  override unavailableCause(): string | undefined {
    return this.connection.outage;
  }

  /** What the endpoint accepted when last probed (endpoint-probe.ts); undefined before. */
  get compatibility(): EndpointCompatibility | undefined {
    return this.callMode.compatibility;
  }

  /** Its `now` where one is given; else this server's clock (Redis's decides). */
  override currentTimeMs(): number {
    return this.now ? this.now() : Date.now();
  }

  override leasedOn(key: string): number {
    return this.leases.unusedOn(key);
  }

  override endLeases(): Promise<void> {
    return this.leases.endAll();
  }

  override async close(): Promise<void> {
    // What this server leased and did not use goes back before the connection closes.
    await this.leases.endAll();
    this.callMode.stop();
    this.connection.stop();
    this.coverage?.stop();
    this.unanswered.stop();
    this.broadcast?.close();
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}
