import type { Cluster, Redis } from 'ioredis';
import { Decision, RawReply, toDecision } from '../algorithms/decision';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../errors/store-unavailable.error';
import { DenialCache } from './denial-cache';
import { LimiterStore, toMicros } from './limiter-store';
import { defineBuiltInCommands, LimiterCommand, limiterCommand } from './lua-commands';

/** @publicApi */
export interface RedisStoreOptions {
  /** An ioredis client: standalone, Sentinel or Cluster. */
  client: Redis | Cluster;
  /**
   * Clock in milliseconds. When given, scripts take the time as an argument instead of
   * calling Redis `TIME`: for tests that control time. Leave it out in production, so
   * every app server shares Redis's one clock.
   */
  now?: () => number;
  /** Whether {@link close} disconnects the client; true only for a client the module created. */
  ownsClient?: boolean;
  /** Remember denials locally until their retry time (default true); see {@link DenialCache}. */
  cacheDenials?: boolean;
}

/**
 * Limiter state in Redis. Each decision is one EVALSHA of the algorithm's script on one
 * key (ioredis `defineCommand` reloads a script on NOSCRIPT), so it works unchanged on
 * Redis Cluster and any number of app servers share one exact limit.
 *
 * @publicApi
 */
export class RedisStore extends LimiterStore {
  readonly client: Redis | Cluster;
  private readonly now?: () => number;
  private readonly ownsClient: boolean;
  private readonly denials?: DenialCache;
  private readonly argvByParams = new WeakMap<object, readonly string[]>();
  private corked = false;

  constructor(options: RedisStoreOptions) {
    super();
    this.client = options.client;
    this.now = options.now;
    this.ownsClient = options.ownsClient ?? false;
    if (options.cacheDenials !== false)
      this.denials = new DenialCache(options.now ?? performance.now.bind(performance));
    defineBuiltInCommands(this.client);
  }

  async evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision> {
    const scope = this.denials && algorithm.denialScope?.(request);
    if (scope !== undefined) {
      const denied = this.denials?.get(key, scope);
      if (denied) return denied;
    }
    const algorithmOfAny = algorithm as LimiterAlgorithm<unknown, unknown, unknown>;
    const command =
      (this.client as unknown as Record<string, LimiterCommand | undefined>)[
        algorithm.commandName
      ] ?? (await limiterCommand(this.client, algorithmOfAny));
    const time = this.now ? String(toMicros(this.now())) : '';
    let reply: unknown;
    try {
      const fixed = this.paramsArgv(algorithm, params);
      this.coalesceWrites();
      reply = await (algorithm.requestArgv
        ? command.call(this.client, key, time, ...fixed, ...algorithm.requestArgv(request))
        : command.call(this.client, key, time, ...fixed));
    } catch (error) {
      throw new StoreUnavailableError(`Redis failed to evaluate ${algorithm.commandName}`, error);
    }
    const decision = toDecision(parseReply(reply, algorithm.commandName), algorithm.limit(params));
    if (scope !== undefined) this.denials?.remember(key, scope, decision);
    return decision;
  }

  /**
   * Holds a standalone client's socket writes until the end of this event-loop turn, so the
   * decisions of one turn reach Redis in one write, with no limit on how many such batches
   * are in flight (ioredis auto-pipelining waits for each batch's replies before sending
   * the next one, which made Node and Redis take turns in bench/). A Cluster has a socket
   * per node and is left alone; a client not yet connected queues commands itself.
   */
  private coalesceWrites(): void {
    if (this.corked) return;
    const socket = (this.client as { stream?: { cork?: () => void; uncork: () => void } }).stream;
    if (!socket || typeof socket.cork !== 'function' || this.client.status !== 'ready') return;
    this.corked = true;
    socket.cork();
    setImmediate(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  /** A limit's parameters never change: format them for the script once per params object. */
  private paramsArgv<P>(
    algorithm: LimiterAlgorithm<P, unknown, unknown>,
    params: P,
  ): readonly string[] {
    if (typeof params !== 'object' || params === null) return algorithm.paramsArgv(params);
    let argv = this.argvByParams.get(params);
    if (!argv) {
      argv = algorithm.paramsArgv(params);
      this.argvByParams.set(params, argv);
    }
    return argv;
  }

  /** A connection that was lost and is being retried; a first connection is waited for. */
  override isUnavailable(): boolean {
    const status = this.client.status;
    return status === 'reconnecting' || status === 'end' || status === 'close';
  }

  override async close(): Promise<void> {
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

function parseReply(reply: unknown, commandName: string): RawReply {
  if (!Array.isArray(reply) || reply.length !== 5) {
    throw new StoreUnavailableError(`Unexpected reply from ${commandName}: ${String(reply)}`);
  }
  const numbers = reply.map(Number);
  if (numbers.some((n) => Number.isNaN(n))) {
    throw new StoreUnavailableError(`Unexpected reply from ${commandName}: ${reply.join(',')}`);
  }
  return numbers as unknown as RawReply;
}
