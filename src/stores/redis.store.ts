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
   * every app server shares Redis's one clock. The fixed window is the exception: its
   * windows are Redis key expiries, so they follow Redis's real time whatever `now` says.
   */
  now?: () => number;
  /** Whether {@link close} disconnects the client; true only for a client the module created. */
  ownsClient?: boolean;
  /** Remember denials locally until their retry time (default true); see {@link DenialCache}. */
  cacheDenials?: boolean;
  /**
   * Send the commands of one event-loop turn in one socket write (default true; standalone
   * clients only). Other commands you send on the same client in that turn are batched too.
   */
  coalesceWrites?: boolean;
}

/** A limit's script arguments, formatted once, and the name of the limit they make. */
interface FixedArguments {
  argv: readonly string[];
  /** Script and parameters: what a remembered denial must match. */
  limitId: string;
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
  private readonly argumentsByParams = new WeakMap<object, FixedArguments>();
  private readonly coalesce: boolean;
  private corked = false;

  constructor(options: RedisStoreOptions) {
    super();
    this.client = options.client;
    this.now = options.now;
    this.ownsClient = options.ownsClient ?? false;
    this.coalesce = options.coalesceWrites ?? true;
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
    const fixed = this.fixedArguments(algorithm, params);
    const scope = this.denials && algorithm.denialScope?.(request);
    if (scope !== undefined) {
      const denied = this.denials?.get(key, fixed.limitId, scope);
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
      if (this.coalesce) this.coalesceWrites();
      reply = await (algorithm.requestArgv
        ? command.call(this.client, key, time, ...fixed.argv, ...algorithm.requestArgv(request))
        : command.call(this.client, key, time, ...fixed.argv));
    } catch (error) {
      throw new StoreUnavailableError(`Redis failed to evaluate ${algorithm.commandName}`, error);
    }
    const decision = toDecision(parseReply(reply, algorithm.commandName), algorithm.limit(params));
    if (scope !== undefined) this.denials?.remember(key, fixed.limitId, scope, decision);
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
  private fixedArguments<P>(
    algorithm: LimiterAlgorithm<P, unknown, unknown>,
    params: P,
  ): FixedArguments {
    const cacheable = typeof params === 'object' && params !== null;
    let fixed = cacheable ? this.argumentsByParams.get(params) : undefined;
    if (!fixed) {
      const argv = algorithm.paramsArgv(params);
      fixed = { argv, limitId: `${algorithm.commandName} ${argv.join(' ')}` };
      if (cacheable) this.argumentsByParams.set(params, fixed);
    }
    return fixed;
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
