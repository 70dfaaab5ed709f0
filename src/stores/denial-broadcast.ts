import type { Cluster, Redis } from 'ioredis';

/** The channel on which stores announce keys whose state an operation changed. */
export const FORGET_CHANNEL = 'nestjs-limiter:forget';

/**
 * Keeps every app server's remembered denials true when a key is reset, refunded or
 * blocked on another server (DESIGN §9: "reset on one server frees the key for
 * another"). The server that changes a key publishes its name; every store that
 * remembers denials listens, on a connection of its own opened with its first remembered
 * denial, and forgets that key. While that connection is lost (or refused, say by an ACL
 * without the channel), denials are not answered locally, and everything remembered is
 * forgotten when it is lost and again when it listens again. A change announced in the
 * moment between a store's first denial and its subscription is not heard: that denial
 * is then answered locally until its retry time, as it was before announcements existed.
 */
export class DenialBroadcast {
  private subscriber?: Redis | Cluster;
  /** False from a lost connection until it listens again. */
  private usable = false;
  /** Set by {@link close}: a denial settled after it must not open a connection nobody closes. */
  private closed = false;

  constructor(
    private readonly client: Redis | Cluster,
    private readonly forget: (key?: string) => void,
  ) {}

  /** Whether remembered denials may be used: changes are heard, or soon will be. */
  get listening(): boolean {
    return this.usable;
  }

  /** Starts listening, once; called when a first denial is remembered. */
  listen(): void {
    if (this.subscriber || this.closed) return;
    const subscriber = (this.client as Redis).duplicate() as Redis | Cluster;
    this.subscriber = subscriber;
    this.usable = true;
    let lost = false;
    const listening = (): void => {
      if (this.subscriber !== subscriber || !lost) return;
      lost = false;
      this.usable = true;
      this.forget();
    };
    const deaf = (): void => {
      lost = true;
      this.usable = false;
      this.forget();
    };
    subscriber.on('message', (_channel: string, key: string) => this.forget(key));
    // While the connection is away, changes go unheard: forget, and stop answering locally.
    subscriber.on('close', deaf);
    // ioredis subscribes again after a reconnect, before it reports ready.
    subscriber.on('ready', listening);
    subscriber.on('error', () => undefined);
    subscriber.subscribe(FORGET_CHANNEL).then(listening, () => {
      deaf();
      subscriber.disconnect();
    });
    // A client that ends (its app or test closed it) takes this connection with it.
    this.client.once('end', () => this.close());
  }

  /**
   * Tells every server to forget what it remembers of `key`; resolves once Redis has
   * passed it on (never rejects: a server that misses it stops answering locally when its
   * connection drops).
   */
  announce(key: string): Promise<void> {
    return this.client.publish(FORGET_CHANNEL, key).then(
      () => undefined,
      () => undefined,
    );
  }

  close(): void {
    this.closed = true;
    this.usable = false;
    this.subscriber?.disconnect();
  }
}
