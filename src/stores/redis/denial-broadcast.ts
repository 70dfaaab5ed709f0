import { randomUUID } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** The channel on which stores announce keys whose state an operation changed. */
export const FORGET_CHANNEL = 'nestjs-limiter:forget';

/**
 * How a reset or a block (not a refund) is told on {@link FORGET_CHANNEL}, beside the key's
 * own message: this prefix, the sender's id, a space, the key. Every other server forgets
 * what it leased on the key. One channel, so the ACL the denials need is all it needs (a
 * server of an older version forgets a key of this name, which no one uses).
 */
const RESET_PREFIX = '\0reset ';

/** What a store's remembered denials are told by the announcements. */
export interface AnnouncementListener {
  /** Another server (or this one) changed the key's state. */
  forget(key: string): void;
  /** Announcements are heard from now on. */
  hearing(): void;
  /** Announcements are not heard: the connection is lost or was refused. */
  deaf(): void;
  /** Another server reset or blocked the key: what this one leased on it is gone. */
  reset?(key: string): void;
}

/**
 * Keeps every app server's remembered denials true when a key is reset, refunded or
 * blocked on another server (docs/design.md#state-and-cost: "reset on one server frees the key for
 * another"). The server that changes a key publishes its name; every store that
 * remembers denials listens, on a connection of its own opened when the store starts (or
 * with its first decision), and forgets that key. Until that connection has subscribed,
 * and whenever it is lost (or refused, say by an ACL without the channel), the listener is
 * deaf: no denial is remembered, so none can outlive a change nobody heard. A reset or
 * block is also told as such ({@link RESET_PREFIX}): every other server ends its leases of
 * the key (lease-book.ts), which serve only while this listener hears.
 */
export class DenialBroadcast {
  private subscriber?: Redis | Cluster;
  /** True from a confirmed subscription until the connection is lost. */
  private usable = false;
  /** Set by {@link close}: a late decision must not open a connection nobody closes. */
  private closed = false;
  /** Tells this store's own reset announcements from other servers'. */
  private readonly id = randomUUID();

  constructor(
    private readonly client: Redis | Cluster,
    private readonly listener?: AnnouncementListener,
  ) {}

  /** Whether remembered denials may be used: changes are heard. */
  get listening(): boolean {
    return this.usable;
  }

  /**
   * Starts listening, once: when the store starts, or with its first decision. Resolves
   * when the first subscription is confirmed or refused (never rejects).
   */
  listen(): Promise<void> {
    // A client its owner has closed is never listened through: the 'end' that closes this
    // connection with it has been and gone, so nothing would ever close it.
    if (this.client.status === 'end') this.close();
    const listener = this.listener;
    if (!listener || this.closed) return Promise.resolve();
    this.subscribed ??= this.subscribe(listener).finally(() => (this.answered = true));
    return this.subscribed;
  }

  /** Whether the first subscription was asked for and Redis has not answered it yet. */
  get starting(): boolean {
    return this.subscribed !== undefined && !this.answered && !this.closed;
  }

  private subscribed?: Promise<void>;
  private answered = false;

  /**
   * Whether announcements are heard, so a lease may serve (lease-book.ts); while the first
   * subscription is under way, when that is known (a request's deadline waits no longer).
   */
  hearingBy(deadlineMs: number): boolean | Promise<unknown> {
    const listening = this.listen();
    if (this.usable || !this.starting) return this.usable;
    const waitMs = deadlineMs - performance.now();
    if (waitMs <= 0) return false;
    if (waitMs === Infinity) return listening;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise((resolve) => (timer = setTimeout(resolve, waitMs)));
    return Promise.race([listening, deadline]).finally(() => clearTimeout(timer));
  }

  private subscribe(listener: AnnouncementListener): Promise<void> {
    // Resubscribing after a loss is done below, where its failure is caught: ioredis's own
    // (autoResubscribe) leaves its promise unobserved, and a connection closed before Redis
    // answers it would reject with nobody listening, which Node makes a crash. (A Cluster's
    // subscriber connection never reconnects: ioredis subscribes a new one, catching that.)
    const subscriber: Redis | Cluster = this.client.isCluster
      ? (this.client as Cluster).duplicate()
      : (this.client as Redis).duplicate({ autoResubscribe: false });
    this.subscriber = subscriber;
    const hearing = (): void => {
      if (this.subscriber !== subscriber || this.closed) return;
      this.usable = true;
      listener.hearing();
    };
    let lost = false;
    const deaf = (): void => {
      lost = true;
      this.usable = false;
      listener.deaf();
    };
    const subscribe = (): Promise<void> =>
      subscriber.subscribe(FORGET_CHANNEL).then(hearing, () => {
        deaf();
        if (subscriber.status !== 'end') subscriber.disconnect();
      });
    subscriber.on('message', (_channel: string, message: string) => {
      if (!message.startsWith(RESET_PREFIX)) return listener.forget(message);
      const space = message.indexOf(' ', RESET_PREFIX.length);
      if (space > 0 && message.slice(RESET_PREFIX.length, space) !== this.id) {
        listener.reset?.(message.slice(space + 1));
      }
    });
    // While the connection is away, changes go unheard.
    subscriber.on('close', deaf);
    // Back after a loss: heard again once Redis confirms the subscription.
    subscriber.on('ready', () => {
      if (!lost) return;
      lost = false;
      void subscribe();
    });
    subscriber.on('error', () => undefined);
    // A client that ends (its app or test closed it) takes this connection with it.
    this.client.once('end', () => this.close());
    return subscribe();
  }

  /**
   * Tells every server to forget what it remembers of `key`; resolves once Redis has
   * passed it on (never rejects: a server that misses it is deaf, and remembers nothing,
   * until its connection is back).
   */
  announce(key: string): Promise<void> {
    return this.client.publish(FORGET_CHANNEL, key).then(
      () => undefined,
      () => undefined,
    );
  }

  /**
   * Tells every other server that `key` was reset or blocked: what they leased on it before
   * is not theirs to hand out or give back. Resolves once Redis has passed it on (never
   * rejects: a server that misses it is deaf, and its leases serve nothing, until its
   * connection is back).
   */
  announceReset(key: string): Promise<void> {
    return this.client.publish(FORGET_CHANNEL, `${RESET_PREFIX}${this.id} ${key}`).then(
      () => undefined,
      () => undefined,
    );
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.usable = false;
    // An ended connection has nothing to close (disconnecting it would arm a 2 s timer).
    if (this.subscriber && this.subscriber.status !== 'end') this.subscriber.disconnect();
  }
}
