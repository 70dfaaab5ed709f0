import type { Cluster, Redis } from 'ioredis';
import { Logger } from '@nestjs/common';
import { isIP, type Socket } from 'node:net';
import { RespConnection, RespScript, RespTarget } from './resp/resp-connection';

/** After a failure, the first pause before the connection is opened again; it doubles up to the cap. */
const REOPEN_AFTER_MS = 1000;
const REOPEN_AFTER_MAX_MS = 60_000;

/**
 * The store's own connection for limiter scripts, next to an ioredis client it follows.
 *
 * It opens when the client becomes ready, to the server the client reached (so a Sentinel
 * failover carries over), and closes when the client ends for good or its own socket
 * closes. It does not close when the client merely reconnects: an idle client may be
 * dropped by the server's `timeout` while this connection is busy. Whenever it is not
 * ready, decisions go through the client as before, so a connection that cannot be made
 * costs speed, never decisions (bench/, section 1).
 */
export class ScriptConnection {
  private connection?: RespConnection;
  private current?: RespConnection;
  private reopenAtMs = 0;
  /** Failed attempts in a row: the backoff, and one warning per streak. */
  private failures = 0;
  private closed = false;
  private readonly onReady = (): void => this.open();
  private readonly onEnd = (): void => this.drop();

  private constructor(
    private readonly client: Redis,
    /** Loaded on every new connection: the built-in algorithms' scripts. */
    private readonly scripts: readonly RespScript[],
    /** The client's own `keyPrefix`, which ioredis adds to keys and this connection must too. */
    readonly keyPrefix: string,
    private readonly logger: Logger,
  ) {
    client.on('ready', this.onReady);
    client.on('end', this.onEnd);
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
    return new ScriptConnection(
      redis,
      scripts,
      redis.options.keyPrefix ?? '',
      new Logger('RateLimiter'),
    );
  }

  /** Whether scripts can run on this connection now, whatever the client's own state. */
  get isReady(): boolean {
    return this.current !== undefined;
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
    this.client.off('end', this.onEnd);
    this.drop();
  }

  private open(): void {
    if (this.closed || this.connection) return;
    const target = targetOf(this.client);
    if (!target) return;
    const connection = new RespConnection(target, this.scripts, (gone, error) => {
      if (this.connection !== gone) return;
      const wasReady = this.current === gone;
      this.connection = undefined;
      this.current = undefined;
      if (!wasReady) this.failed(error);
      this.reopenAtMs = performance.now() + this.reopenDelayMs();
    });
    this.connection = connection;
    connection.ready.then(
      () => {
        if (this.connection !== connection) return;
        this.current = connection;
        this.failures = 0;
      },
      () => undefined, // closed; the callback above has already forgotten it
    );
  }

  /** A connection that never got ready: warn once per streak of failures. */
  private failed(error: Error): void {
    if (this.failures++ > 0) return;
    this.logger.warn(
      `The rate-limit store's own Redis connection could not be set up (${error.message}); ` +
        'its scripts go through the ioredis client meanwhile, and it tries again with backoff',
    );
  }

  private reopenDelayMs(): number {
    if (this.failures === 0) return REOPEN_AFTER_MS;
    return Math.min(REOPEN_AFTER_MAX_MS, REOPEN_AFTER_MS * 2 ** (this.failures - 1));
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
 * client's socket, which for Sentinel is the current master; TLS checks the certificate
 * against the host name the user gave. Sentinel with TLS is left to ioredis (undefined).
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
  if (options.tls && options.sentinels?.length) return undefined;
  const socket = client.stream as Socket | undefined;
  if (!socket?.remoteAddress || !socket.remotePort) return undefined;
  const address = { ...common, host: socket.remoteAddress, port: socket.remotePort };
  if (!options.tls) return address;
  const servername =
    options.tls.servername ?? (isIP(options.host ?? '') ? undefined : options.host);
  return { ...address, tls: { ...options.tls, servername } };
}
