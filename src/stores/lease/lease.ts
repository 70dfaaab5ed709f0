import { Decision } from '../../contracts/decision';
import { withPermits } from '../../algorithms/state-ops/lease-option';

/** A request waiting for the lease's permits. */
interface Waiter {
  permits: number;
  request: unknown;
  deadlineMs: number;
  resolve(decision: Decision): void;
  reject(error: unknown): void;
}

/** How a lease reaches Redis: the limit's acquire, and its refund of what was not used. */
export interface LeaseRedis {
  acquire(request: unknown, deadlineMs: number): Promise<Decision>;
  /** `resetLeftMicros`: the window the permits were taken in, for a limit of windows. */
  giveBack(permits: number, resetLeftMicros: number | undefined): Promise<unknown>;
}

/**
 * One server's lease of a limit's permits on one key (docs/hot-keys.md). It takes up to
 * `size` permits from Redis in one decision, which Redis counts as taken, and hands them out
 * in the order requests come; one request for more is in flight at a time, and the requests
 * that arrive meanwhile wait for it. Each lease asks for at most half of what Redis said was
 * left, so near the limit the leases shrink to the request's own permits: a decision in
 * Redis. When the key runs out, every waiting request is sent to Redis, where each is
 * decided exactly. What was not used goes back when the lease ends: after `lifetimeMs`, at
 * the end of the window, on close.
 */
export class Lease {
  private stock = 0;
  /** What Redis said was left after the last lease (leased permits count as taken). */
  private remaining = Infinity;
  private limit = 0;
  private resetAtMs = 0;
  private endsAtMs = 0;
  private timer?: NodeJS.Timeout;
  private queue: Waiter[] = [];
  private fetching = false;
  /** Counts the drops: permits fetched before the last one are not this lease's any more. */
  private generation = 0;
  /** Set by {@link retire}: nothing more is leased, what arrives goes back at once. */
  private retired = false;
  /** The permits asked for from Redis, until they are granted (or not). */
  private asking?: Promise<unknown>;
  /** What a retired lease's late permits left: given back as they arrived. */
  private givingBack?: Promise<unknown>;

  constructor(
    private readonly size: number,
    private readonly redis: LeaseRedis,
    private readonly lifetimeMs: number,
    /** The limit's permits come back at the end of a window: the lease ends by then. */
    private readonly endsWithWindow: boolean,
    /** Told when the lease has ended with nothing left and no one waiting. */
    private readonly onIdle: () => void,
    /** What must happen before the first permits are leased: the old limit's leases end. */
    private ready?: Promise<unknown>,
  ) {}

  /** The leased permits not handed out yet. */
  get unused(): number {
    return this.stock;
  }

  take(permits: number, request: unknown, deadlineMs: number): Promise<Decision> {
    if (this.stock > 0 && performance.now() >= this.endsAtMs) void this.end();
    if (!this.fetching && this.queue.length === 0 && this.stock >= permits) {
      this.stock -= permits;
      return Promise.resolve(this.served());
    }
    return new Promise<Decision>((resolve, reject) => {
      this.queue.push({ permits, request, deadlineMs, resolve, reject });
      this.pump();
    });
  }

  /** Ends the lease: what was not used goes back to Redis. */
  end(): Promise<unknown> {
    clearTimeout(this.timer);
    const unused = this.stock;
    this.stock = 0;
    if (unused === 0) return Promise.resolve();
    const resetLeftMicros = this.endsWithWindow
      ? Math.max(0, this.resetAtMs - performance.now()) * 1000
      : undefined;
    // A refund that fails leaves the permits taken: the servers then admit fewer, never more.
    return this.redis.giveBack(unused, resetLeftMicros).catch(() => undefined);
  }

  /**
   * Ends the lease for good (the app closes, or the limit's parameters changed): what was
   * not used goes back now, and so do the permits of a lease asked for before.
   */
  retire(): Promise<unknown> {
    this.retired = true;
    return Promise.all([this.end(), this.asking?.then(() => this.givingBack)]);
  }

  /**
   * Forgets what is left, given back to no one: the key was reset or blocked (here or on
   * another server). The reset freed every permit counted before it, those leased here
   * included: given back after it, they would undo part of it. Permits asked for before
   * the drop and granted after it are forgotten too (they may have been counted before the
   * reset), and the requests that waited for them are decided in Redis.
   */
  drop(): void {
    this.generation++;
    this.stock = 0;
    clearTimeout(this.timer);
  }

  private served(): Decision {
    return {
      allowed: true,
      limit: this.limit,
      remaining: this.remaining,
      resetMs: Math.max(0, this.resetAtMs - performance.now()),
      retryAfterMs: 0,
      waitMs: 0,
    };
  }

  private pump(): void {
    if (this.fetching) return;
    this.serveFromStock();
    if (this.queue.length === 0) return;
    if (this.ready || this.retired) return this.waitOrDecideInRedis();
    const head = this.queue[0];
    const permits = Math.max(head.permits, Math.min(this.size, Math.floor(this.remaining / 2)));
    this.fetching = true;
    // Up to `permits`: as many requests of 1, sent together, which the engine decides as one
    // entry (engine-coalescing.ts): each allowed while the key has a permit left.
    const one = withPermits(head.request, 1);
    const asked = Array.from({ length: permits }, () => this.redis.acquire(one, head.deadlineMs));
    const generation = this.generation;
    this.asking = Promise.all(asked).then(
      (decisions) => (generation === this.generation ? this.granted(decisions) : this.dropped()),
      (error: unknown) => {
        this.fetching = false;
        for (const waiter of this.queue.splice(0)) waiter.reject(error);
        this.onIdleIfDone();
      },
    );
  }

  /** Waits for the old limit's leases to end; or, retired, sends the waiting requests to Redis. */
  private waitOrDecideInRedis(): void {
    if (this.retired) return this.decideInRedis();
    this.fetching = true;
    void this.ready!.then(() => {
      this.ready = undefined;
      this.fetching = false;
      this.pump();
    });
  }

  /** The permits asked for before a drop: forgotten, and their requests decided in Redis. */
  private dropped(): void {
    this.fetching = false;
    this.decideInRedis();
  }

  /** Each request still waiting, decided in Redis, exactly. */
  private decideInRedis(): void {
    for (const waiter of this.queue.splice(0)) {
      this.redis.acquire(waiter.request, waiter.deadlineMs).then(waiter.resolve, waiter.reject);
    }
    this.onIdleIfDone();
  }

  private granted(decisions: readonly Decision[]): void {
    this.fetching = false;
    const granted = decisions.filter((decision) => decision.allowed).length;
    const last = decisions[decisions.length - 1];
    this.remaining = last.remaining;
    this.limit = last.limit;
    if (granted > 0) {
      const nowMs = performance.now();
      this.resetAtMs = nowMs + last.resetMs;
      const windowLeftMs = this.endsWithWindow ? last.resetMs : Infinity;
      this.endsAtMs = nowMs + Math.min(this.lifetimeMs, windowLeftMs);
      clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        void this.end();
        this.onIdleIfDone();
      }, this.endsAtMs - nowMs);
      this.timer.unref();
      this.stock += granted;
    }
    this.serveFromStock();
    // Retired while asking: what the waiting requests did not take goes back now.
    if (this.retired) this.givingBack = this.end();
    if (granted === decisions.length && !this.retired) return this.pump();
    // The key ran out: each request still waiting is decided in Redis, exactly.
    this.decideInRedis();
  }

  /** Serves the waiting requests, in their order, while the lease has their permits. */
  private serveFromStock(): void {
    while (this.queue.length > 0 && this.stock >= this.queue[0].permits) {
      const waiter = this.queue.shift()!;
      this.stock -= waiter.permits;
      waiter.resolve(this.served());
    }
  }

  private onIdleIfDone(): void {
    if (this.stock === 0 && !this.fetching && this.queue.length === 0) this.onIdle();
  }
}
