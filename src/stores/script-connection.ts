import type { Cluster, Redis } from 'ioredis';
import type { Socket } from 'node:net';
import { RespConnection, RespScript, RespTarget } from './resp/resp-connection';

/** How long a script connection that failed on its own waits before it is opened again. */
const REOPEN_AFTER_MS = 1000;

/**
 * The store's own connection for limiter scripts, next to an ioredis client it follows.
 *
 * The ioredis client stays the judge of whether Redis is reachable: this connection opens
 * when the client becomes ready (to the server the client reached, so Sentinel failovers
 * carry over), and closes when the client loses its connection. Until it is ready, and
 * whenever it is not, decisions go through the client as before, so nothing is lost by a
 * connection that cannot be made: it only makes the common case cheaper (bench/, section 1).
 */
export class ScriptConnection {
  private connection?: RespConnection;
  private current?: RespConnection;
  private reopenAtMs = 0;
  private closed = false;
  private readonly onReady = (): void => this.open();
  private readonly onLost = (): void => this.drop();

  private constructor(
    private readonly client: Redis,
    /** Loaded on every new connection: the built-in algorithms' scripts. */
    private readonly scripts: readonly RespScript[],
    /** The client's own `keyPrefix`, which ioredis adds to keys and this connection must too. */
    readonly keyPrefix: string,
  ) {
    client.on('ready', this.onReady);
    client.on('close', this.onLost);
    client.on('end', this.onLost);
    if (client.status === 'ready') this.open();
  }

  /** A script connection for a standalone or Sentinel client; none for a Cluster. */
  static follow(
    client: Redis | Cluster,
    scripts: readonly RespScript[],
  ): ScriptConnection | undefined {
    if ((client as Cluster).isCluster) return undefined;
    const redis = client as Redis;
    if (typeof redis.on !== 'function' || !redis.options) return undefined;
    return new ScriptConnection(redis, scripts, redis.options.keyPrefix ?? '');
  }

  /** The connection when it is ready for commands; undefined sends them through the client. */
  ready(): RespConnection | undefined {
    const connection = this.current;
    if (connection) return connection;
    if (
      !this.closed &&
      !this.connection &&
      this.client.status === 'ready' &&
      performance.now() >= this.reopenAtMs
    ) {
      this.open();
    }
    return undefined;
  }

  close(): void {
    this.closed = true;
    this.client.off('ready', this.onReady);
    this.client.off('close', this.onLost);
    this.client.off('end', this.onLost);
    this.drop();
  }

  private open(): void {
    if (this.closed || this.connection) return;
    const target = targetOf(this.client);
    if (!target) return;
    const connection = new RespConnection(target, this.scripts, (gone) => {
      if (this.connection !== gone) return;
      this.connection = undefined;
      this.current = undefined;
      this.reopenAtMs = performance.now() + REOPEN_AFTER_MS;
    });
    this.connection = connection;
    connection.ready.then(
      () => {
        if (this.connection === connection) this.current = connection;
      },
      () => undefined, // closed; the callback above has already forgotten it
    );
  }

  private drop(): void {
    const connection = this.connection;
    this.connection = undefined;
    this.current = undefined;
    connection?.close();
  }
}

/**
 * Where the client is connected, with its credentials. The address comes from the
 * client's socket, which for Sentinel is the current master. TLS connects by host name, so
 * the certificate is checked against the name the user gave; Sentinel with TLS is left to
 * ioredis (undefined).
 */
function targetOf(client: Redis): RespTarget | undefined {
  const options = client.options;
  const common = {
    username: options.username,
    password: options.password,
    db: options.db,
    connectTimeoutMs: options.connectTimeout ?? 10_000,
  };
  if (options.path) return { ...common, path: options.path, tls: options.tls };
  if (options.tls) {
    if (options.sentinels?.length) return undefined;
    return { ...common, host: options.host, port: options.port, tls: options.tls };
  }
  const socket = client.stream as Socket | undefined;
  if (!socket?.remoteAddress || !socket.remotePort) return undefined;
  return { ...common, host: socket.remoteAddress, port: socket.remotePort };
}
