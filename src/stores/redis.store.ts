import type { Cluster, Redis } from 'ioredis';
import { Decision, RawReply, toDecision } from '../algorithms/decision';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../errors/store-unavailable.error';
import { DenialBroadcast } from './denial-broadcast';
import { DecisionGroup } from './decision-group';
import { DenialCache } from './denial-cache';
import { EngineClient } from './engine/engine-client';
import { StoreReplyError } from './store-reply.error';
import { LimiterStore, toMicros } from './limiter-store';

/**
 * Most decisions in one engine script call. A bound, so that one call never holds Redis (and
 * its other clients) for long; the value was chosen by measurement (BENCHMARKS.md).
 */
export const DEFAULT_MAX_BATCH_SIZE = 128;

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
}

/** A limit's script arguments, formatted once, and the name of the limit they make. */
interface FixedArguments {
  argv: readonly string[];
  /** Script and parameters: what a remembered denial must match. */
  limitId: string;
}

/**
 * Limiter state in Redis, through the ioredis client alone. The decisions of one
 * event-loop turn go to Redis together, as one call of one engine script that runs each
 * with its algorithm, atomically and in order (on a Cluster, one call per node). Each
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
  private readonly denials?: DenialCache;
  private readonly broadcast?: DenialBroadcast;
  /** Per params object, then per algorithm: one limit's params serve its acquire and its operations. */
  private readonly argumentsByParams = new WeakMap<object, Map<object, FixedArguments>>();
  private readonly engine: EngineClient;

  constructor(options: RedisStoreOptions) {
    super();
    this.client = options.client;
    this.now = options.now;
    this.ownsClient = options.ownsClient ?? false;
    // Every store announces its resets, refunds and blocks; only one that remembers
    // denials listens for other servers' announcements.
    if (options.cacheDenials !== false) {
      this.denials = new DenialCache(options.now ?? performance.now.bind(performance));
    }
    this.broadcast = new DenialBroadcast(this.client, this.denials);
    const maxBatchSize = options.maxBatchSize ?? DEFAULT_MAX_BATCH_SIZE;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1) {
      throw new RangeError(
        `RedisStore: maxBatchSize must be an integer >= 1, got ${String(options.maxBatchSize)}`,
      );
    }
    this.engine = new EngineClient(this.client, maxBatchSize);
  }

  evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
    deadlineMs = Infinity,
    group?: DecisionGroup,
    onSent?: (sentAtMs: number) => boolean | void,
  ): Promise<Decision> {
    return new Promise<Decision>((resolve, reject) => {
      const fail = (error: unknown): void =>
        reject(
          error instanceof StoreUnavailableError
            ? error
            : new StoreUnavailableError(`Redis failed to evaluate ${algorithm.commandName}`, error),
        );
      const fixed = this.fixedArguments(algorithm, params);
      const scope = this.denials && algorithm.denialScope?.(request);
      // Listening starts with the store (check()), or failing that with its first decision.
      if (scope !== undefined) void this.broadcast?.listen();
      let sentAtMs = -Infinity;
      if (scope !== undefined) {
        const denied = this.broadcast?.listening && this.denials?.get(key, fixed.limitId, scope);
        if (denied) {
          // All or nothing: the request's other limits must take nothing, not even for the
          // moment it would take to give it back (others would find it taken).
          if (group) group.deniedLocally = true;
          return resolve(denied);
        }
      }
      const withdraw = (): void => resolve(untaken(algorithm.limit(params), key, group!));
      if (group?.deniedLocally) return withdraw();
      this.engine.add({
        key,
        algorithm: this.engine.indexOf(algorithm),
        time: this.now ? String(toMicros(this.now())) : '',
        fixedArgv: fixed.argv,
        requestArgv: algorithm.requestArgv?.(request),
        waitMs: deadlineMs - performance.now(),
        sent: (atMs) => {
          sentAtMs = atMs;
          return onSent?.(atMs) !== false;
        },
        group: group && group.size > 1 ? group : undefined,
        withdraw,
        settle: (reply, base) => {
          try {
            const decision = toDecision(entryReply(reply, base), algorithm.limit(params));
            if (scope !== undefined) {
              this.denials?.remember(key, fixed.limitId, scope, decision, sentAtMs);
            } else if (algorithm.forgetsDenials && this.broadcast) {
              // Reset, refund, block: no server may keep answering from a stale denial.
              this.denials?.forget(key);
              return void this.broadcast.announce(key).then(() => resolve(decision));
            }
            resolve(decision);
          } catch (error) {
            fail(error);
          }
        },
        fail,
      });
    });
  }

  /** A limit's parameters never change: format them for the script once per params object. */
  private fixedArguments<P>(
    algorithm: LimiterAlgorithm<P, unknown, unknown>,
    params: P,
  ): FixedArguments {
    const cacheable = typeof params === 'object' && params !== null;
    let byAlgorithm = cacheable ? this.argumentsByParams.get(params) : undefined;
    let fixed = byAlgorithm?.get(algorithm);
    if (!fixed) {
      const argv = algorithm.paramsArgv(params);
      fixed = { argv, limitId: `${algorithm.commandName} ${argv.join(' ')}` };
      if (cacheable) {
        if (!byAlgorithm) this.argumentsByParams.set(params, (byAlgorithm = new Map()));
        byAlgorithm.set(algorithm, fixed);
      }
    }
    return fixed;
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
   * Runs the engine script on no decisions: rejects with NOPERM if the ACL user lacks it.
   * Starts listening to other servers' announcements, before any denial is remembered, and
   * resolves once that has begun (or was refused).
   */
  override async check(): Promise<void> {
    const listening = this.denials ? this.broadcast?.listen() : undefined;
    await this.engine.check();
    await listening;
  }

  /** A connection that was lost and is being retried; a first connection is waited for. */
  override isUnavailable(): boolean {
    const status = this.client.status;
    return status === 'reconnecting' || status === 'end' || status === 'close';
  }

  override async close(): Promise<void> {
    this.broadcast?.close();
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

/**
 * The answer of a group member never sent, because another member was found denied
 * locally: it took nothing, so it is undone (nothing to give back). Its counts are unknown
 * and unchanged; the request is denied by the member that was.
 */
function untaken(limit: number, key: string, group: DecisionGroup): Decision {
  group.undone.add(key);
  return { allowed: true, limit, remaining: limit, resetMs: 0, retryAfterMs: 0, waitMs: 0 };
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
  if (raw.some((n) => Number.isNaN(n))) {
    throw new StoreUnavailableError(`Unexpected reply from the engine script: ${raw.join(',')}`);
  }
  return raw;
}
