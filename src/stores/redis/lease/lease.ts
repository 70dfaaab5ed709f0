import { Decision } from '../../../contracts/decision';
import { StoreUnavailableError } from '../../../errors/store-unavailable.error';
import { LeaseFetch, LeaseRedis, OnSent } from './lease-fetch';
import { LeaseGrant } from './lease-grant';

/** A request waiting for the lease's permits. */
interface Waiter {
  permits: number;
  request: unknown;
  /**
   * How long its caller waits for an answer once the call it waits for is sent (its
   * deadline as it arrived, less the time then): Infinity for no limit.
   */
  patienceMs: number;
  onSent?: OnSent;
  resolve(decision: Decision): void;
  reject(error: unknown): void;
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
  private readonly grant: LeaseGrant;
  private endsAtMs = 0;
  private timer?: NodeJS.Timeout;
  private queue: Waiter[] = [];
  private fetching = false;
  /** Counts the drops: permits fetched before the last one are not this lease's any more. */
  private generation = 0;
  /** Set by {@link retire}: nothing more is leased, what arrives goes back at once. */
  private retired = false;
  /** The permits asked for from Redis, until they are granted (or not, or given up). */
  private asking?: LeaseFetch;
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
  ) {
    this.grant = new LeaseGrant(endsWithWindow);
  }

  /** The leased permits not handed out yet. */
  get unused(): number {
    this.stock = this.grant.held(this.stock, performance.now());
    return this.stock;
  }

  take(permits: number, request: unknown, deadlineMs: number, onSent?: OnSent): Promise<Decision> {
    if (this.stock > 0 && performance.now() >= this.endsAtMs) void this.end();
    this.stock = this.grant.held(this.stock, performance.now());
    if (!this.fetching && this.queue.length === 0 && this.stock >= permits) {
      this.stock -= permits;
      return Promise.resolve(this.grant.served(performance.now()));
    }
    const patienceMs = Math.max(0, deadlineMs - performance.now());
    return new Promise<Decision>((resolve, reject) => {
      this.queue.push({ permits, request, patienceMs, onSent, resolve, reject });
      this.pump();
    });
  }

  /** Ends the lease: what was not used goes back to Redis. */
  end(): Promise<unknown> {
    clearTimeout(this.timer);
    this.stock = this.grant.held(this.stock, performance.now());
    const unused = this.stock;
    this.stock = 0;
    if (unused === 0) return Promise.resolve();
    // A refund that fails leaves the permits taken: the servers then admit fewer, never more.
    return this.redis.giveBack(unused, this.grant.window(performance.now())).catch(() => undefined);
  }

  /**
   * Ends the lease for good (the app closes, or the limit's parameters changed): what was
   * not used goes back now, and so do the permits of a lease asked for before.
   */
  retire(): Promise<unknown> {
    this.retired = true;
    return Promise.all([this.end(), this.asking?.settled.then(() => this.givingBack)]);
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

  private pump(): void {
    if (this.fetching) return;
    this.serveFromStock();
    if (this.queue.length === 0) return;
    if (this.ready || this.retired) return this.waitOrDecideInRedis();
    const head = this.queue[0];
    const permits = Math.max(
      head.permits,
      Math.min(this.size, Math.floor(this.grant.remaining / 2)),
    );
    let patienceMs = 0;
    for (const waiter of this.queue) patienceMs = Math.max(patienceMs, waiter.patienceMs);
    this.fetching = true;
    const generation = this.generation;
    const fetch: LeaseFetch = new LeaseFetch(
      this.redis,
      head.request,
      permits,
      patienceMs,
      (sentAtMs) => this.waitFrom(sentAtMs),
      () => this.gaveUp(fetch),
    );
    this.asking = fetch;
    fetch.decisions.then(
      (decisions) => {
        if (fetch.givenUp) return this.arrivedLate(decisions, generation);
        return generation === this.generation ? this.granted(decisions) : this.dropped();
      },
      (error: unknown) => {
        if (fetch.givenUp) return;
        this.fetching = false;
        for (const waiter of this.queue.splice(0)) waiter.reject(error);
        this.onIdleIfDone();
      },
    );
  }

  /**
   * The fetch left for Redis: every request waiting for it waits from now (a busy app's own
   * delays never count against Redis), and those whose callers gave up leave the queue (the
   * failure policy answered them).
   */
  private waitFrom(sentAtMs: number): void {
    this.queue = this.queue.filter((waiter) => {
      if (waiter.onSent?.(sentAtMs) !== false) return true;
      waiter.reject(new StoreUnavailableError('the request stopped waiting for the lease'));
      return false;
    });
  }

  /**
   * The fetch's deadline passed unanswered: the requests waiting for it fail (the failure
   * policy answers them), and the next request asks Redis again.
   */
  private gaveUp(fetch: LeaseFetch): void {
    if (this.asking !== fetch) return;
    this.fetching = false;
    const error = new StoreUnavailableError('no answer to the lease within its deadline');
    for (const waiter of this.queue.splice(0)) waiter.reject(error);
    this.onIdleIfDone();
  }

  /** Permits granted to a fetch given up: back to Redis, unless a drop has freed them. */
  private arrivedLate(decisions: readonly Decision[], generation: number): void {
    const granted = decisions.filter((decision) => decision.allowed).length;
    if (granted === 0 || generation !== this.generation) return;
    const last = decisions[decisions.length - 1];
    void this.redis.giveBack(granted, this.grant.windowOf(last)).catch(() => undefined);
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
      const { request, patienceMs, onSent, resolve, reject } = waiter;
      this.redis.acquire(request, performance.now() + patienceMs, onSent).then(resolve, reject);
    }
    this.onIdleIfDone();
  }

  private granted(decisions: readonly Decision[]): void {
    this.fetching = false;
    const granted = decisions.filter((decision) => decision.allowed).length;
    const last = decisions[decisions.length - 1];
    const nowMs = performance.now();
    this.grant.record(last, granted, nowMs);
    if (granted > 0) {
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
    this.stock = this.grant.held(this.stock, performance.now());
    while (this.queue.length > 0 && this.stock >= this.queue[0].permits) {
      const waiter = this.queue.shift()!;
      this.stock -= waiter.permits;
      waiter.resolve(this.grant.served(performance.now()));
    }
  }

  private onIdleIfDone(): void {
    if (this.stock === 0 && !this.fetching && this.queue.length === 0) this.onIdle();
  }
}
