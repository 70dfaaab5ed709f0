import type { Cluster, Redis } from 'ioredis';
import { Decision, RawReply, toDecision } from '../algorithms/decision';
import { BUILT_IN_ALGORITHMS } from '../algorithms/built-in-algorithms';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { StoreUnavailableError } from '../errors/store-unavailable.error';
import { DenialBroadcast } from './denial-broadcast';
import { DenialCache } from './denial-cache';
import { LimiterStore, toMicros } from './limiter-store';
import { defineBuiltInCommands, LimiterCommand, limiterCommand } from './lua-commands';
import { bulkString, RespConnection, respScript, RespScript } from './resp/resp-connection';
import { RespValue } from './resp/resp-reader';
import { ScriptConnection } from './script-connection';
import { standaloneScript } from './standalone-script';

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
  /**
   * Run the scripts on a connection of the store's own (default true; standalone and
   * Sentinel clients), opened with the client's settings when the client is ready, and
   * closed with its own socket, the client's end or {@link close}. It sends pre-encoded
   * EVALSHA and reads replies with no per-command objects: bench/ measured ioredis's
   * per-command work as most of the Node CPU of a decision. Until it is ready, and for a
   * Cluster, scripts go through the client itself. README "Connections".
   */
  dedicatedConnection?: boolean;
}

/** A limit's script arguments, formatted once, and the name of the limit they make. */
interface FixedArguments {
  argv: readonly string[];
  /** The same arguments as RESP bulk strings, for the dedicated connection. */
  encoded: string;
  /** Script and parameters: what a remembered denial must match. */
  limitId: string;
}

/** Every algorithm's script as the dedicated connection sends it, hashed once. */
const scripts = new WeakMap<object, RespScript>();

function scriptOf(algorithm: LimiterAlgorithm<unknown, unknown, unknown>): RespScript {
  let script = scripts.get(algorithm);
  if (!script) {
    script = respScript(standaloneScript(algorithm.lua));
    scripts.set(algorithm, script);
  }
  return script;
}

/**
 * Limiter state in Redis. Each decision is one EVALSHA of the algorithm's script on one
 * key, EVAL once on NOSCRIPT (on the store's own connection, or through ioredis
 * `defineCommand`), so it works unchanged on Redis Cluster and any number of app servers
 * share one exact limit.
 *
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
  private readonly coalesce: boolean;
  private readonly dedicated?: ScriptConnection;
  private corked = false;

  constructor(options: RedisStoreOptions) {
    super();
    this.client = options.client;
    this.now = options.now;
    this.ownsClient = options.ownsClient ?? false;
    this.coalesce = options.coalesceWrites ?? true;
    if (options.cacheDenials !== false) {
      const denials = new DenialCache(options.now ?? performance.now.bind(performance));
      this.denials = denials;
      this.broadcast = new DenialBroadcast(this.client, (key) => denials.forget(key));
    }
    defineBuiltInCommands(this.client);
    if (options.dedicatedConnection !== false) {
      this.dedicated = ScriptConnection.follow(this.client, BUILT_IN_ALGORITHMS.map(scriptOf));
    }
  }

  evaluate<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    params: P,
    request: R,
  ): Promise<Decision> {
    let fixed: FixedArguments;
    let scope: string | undefined;
    let reply: Promise<unknown>;
    try {
      fixed = this.fixedArguments(algorithm, params);
      scope = this.denials && algorithm.denialScope?.(request);
      if (scope !== undefined) {
        const denied = this.broadcast?.listening && this.denials?.get(key, fixed.limitId, scope);
        if (denied) return Promise.resolve(denied);
      }
      const time = this.now ? String(toMicros(this.now())) : '';
      const connection = this.dedicated?.ready();
      reply = connection
        ? this.viaConnection(connection, algorithm, key, time, fixed, request)
        : this.viaClient(algorithm, key, time, fixed.argv, request);
    } catch (error) {
      // A decision fails as a rejected promise, never as a throw.
      reply = Promise.reject(error);
    }
    // Plain promise callbacks rather than async/await: this is the path of every request.
    return reply.then(
      (value) => {
        const raw = parseReply(value, algorithm.commandName);
        const decision = toDecision(raw, algorithm.limit(params));
        if (scope !== undefined) {
          if (!decision.allowed) this.broadcast?.listen();
          this.denials?.remember(key, fixed!.limitId, scope, decision);
        } else if (algorithm.forgetsDenials && this.broadcast) {
          this.denials?.forget(key);
          return this.broadcast.announce(key).then(() => decision);
        }
        return decision;
      },
      (error: unknown) => {
        throw new StoreUnavailableError(`Redis failed to evaluate ${algorithm.commandName}`, error);
      },
    );
  }

  /** The script on the store's dedicated connection, its arguments encoded here. */
  private viaConnection<P, R, S>(
    connection: RespConnection,
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    time: string,
    fixed: FixedArguments,
    request: R,
  ): Promise<unknown> {
    const requestArgv = algorithm.requestArgv?.(request);
    let args = bulkString(time) + fixed.encoded;
    if (requestArgv) for (const arg of requestArgv) args += bulkString(arg);
    return connection.evalsha(
      scriptOf(algorithm as LimiterAlgorithm<unknown, unknown, unknown>),
      this.dedicated!.keyPrefix + key,
      args,
      1 + fixed.argv.length + (requestArgv?.length ?? 0),
      // Never written before the connection closed, so it cannot have counted: use the client.
      () => this.viaClient(algorithm, key, time, fixed.argv, request) as Promise<RespValue>,
    );
  }

  /** The script as an ioredis defined command: until the dedicated connection is ready, or without one. */
  private async viaClient<P, R, S>(
    algorithm: LimiterAlgorithm<P, R, S>,
    key: string,
    time: string,
    fixedArgv: readonly string[],
    request: R,
  ): Promise<unknown> {
    const command =
      (this.client as unknown as Record<string, LimiterCommand | undefined>)[
        algorithm.commandName
      ] ??
      (await limiterCommand(this.client, algorithm as LimiterAlgorithm<unknown, unknown, unknown>));
    if (this.coalesce) this.coalesceWrites();
    return algorithm.requestArgv
      ? command.call(this.client, key, time, ...fixedArgv, ...algorithm.requestArgv(request))
      : command.call(this.client, key, time, ...fixedArgv);
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
    let byAlgorithm = cacheable ? this.argumentsByParams.get(params) : undefined;
    let fixed = byAlgorithm?.get(algorithm);
    if (!fixed) {
      const argv = algorithm.paramsArgv(params);
      fixed = {
        argv,
        encoded: argv.map(bulkString).join(''),
        limitId: `${algorithm.commandName} ${argv.join(' ')}`,
      };
      if (cacheable) {
        if (!byAlgorithm) this.argumentsByParams.set(params, (byAlgorithm = new Map()));
        byAlgorithm.set(algorithm, fixed);
      }
    }
    return fixed;
  }

  /** A connection that was lost and is being retried; a first connection is waited for. */
  override isUnavailable(): boolean {
    // The store's own connection decides while it is up, even if the client is reconnecting.
    if (this.dedicated?.isReady) return false;
    const status = this.client.status;
    return status === 'reconnecting' || status === 'end' || status === 'close';
  }

  override async close(): Promise<void> {
    this.dedicated?.close();
    this.broadcast?.close();
    if (!this.ownsClient) return;
    try {
      await this.client.quit();
    } catch {
      this.client.disconnect();
    }
  }
}

function parseReply(reply: unknown, commandName: string): RawReply {
  if (Array.isArray(reply) && reply.length === 5) {
    let numbers = true;
    for (const item of reply) if (typeof item !== 'number') numbers = false;
    if (numbers) return reply as unknown as RawReply;
    // ioredis on RESP2 may hand integers over as strings; anything else is not a decision.
    const parsed = reply.map(Number);
    if (!parsed.some((n) => Number.isNaN(n))) return parsed as unknown as RawReply;
  }
  throw new StoreUnavailableError(`Unexpected reply from ${commandName}: ${String(reply)}`);
}
