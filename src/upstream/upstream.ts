import { Decision } from '../contracts/decision';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { UpstreamBusyError } from './upstream-busy.error';
import { isPause, UpstreamBucket } from './upstream-bucket';
import { UpstreamLearner } from './upstream-learner';
import { LearnedBudget } from './upstream-learning.model';
import { callSettings, UpstreamCallOptions, UpstreamSettings } from './upstream.options';
import { PendingCall, TenantQueue } from './upstream-queue';
import { UpstreamEvents } from './upstream-events';

/** How far ahead a slot is reserved: a call waits at most this long on a slot it holds. */
const LOOKAHEAD_MS = 100;
/** How far behind its pace a tenant may fall and catch up. */
const PACE_SLACK_MS = 50;

/** What the admin page and the metrics read of an upstream. */
export interface UpstreamStatus {
  name: string;
  rate: number;
  learnedRate: number;
  pausedForMs: number;
  waiting: number;
}

/**
 * An API the app calls, with the budget every server shares for it. `call` waits for a slot,
 * runs the function and hands back its result or its error; the answers steer the budget
 * (upstream-learner.ts). Slots are taken from one token bucket in Redis (upstream-bucket.ts),
 * tenants paced at their fair shares (upstream-learning.model.ts), first in first out within
 * a tenant.
 *
 * @publicApi
 */
export class Upstream {
  private readonly tenants = new Map<string, TenantQueue>();
  private pauseUntil = 0;
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = Infinity;
  private pumpQueued = false;
  private lastRetryMs = 0;
  private closed = false;
  /** @internal */
  learner?: UpstreamLearner;

  /** @internal */
  constructor(
    readonly settings: UpstreamSettings,
    private readonly bucket: UpstreamBucket,
    private readonly events: UpstreamEvents = {},
  ) {}

  get name(): string {
    return this.settings.name;
  }

  /** Waits for a slot, runs `fn`, and returns its result (or rethrows its error). */
  async call<T>(fn: () => T | PromiseLike<T>, options: UpstreamCallOptions = {}): Promise<T> {
    const { tenant, weight, cost } = callSettings(this.name, options);
    if (cost > this.settings.capacity) {
      const expected = `at most the upstream's capacity (${this.settings.capacity})`;
      throw new LimiterConfigError(
        limiterMessages.invalidOption(`upstream '${this.name}' call`, 'cost', cost, expected),
      );
    }
    const { signal } = options;
    if (signal?.aborted) throw signal.reason;
    const queuedAt = performance.now();
    await this.slot(tenant, weight, cost, signal, queuedAt);
    this.events.started?.(this.name, performance.now() - queuedAt);
    let result: T;
    try {
      result = await fn();
    } catch (error) {
      this.learner?.read(error);
      throw error;
    }
    this.learner?.read(result);
    return result;
  }

  /** `call(() => fetch(input, init), options)`; the call's `signal` reaches fetch too. */
  fetch(input: string | URL | Request, init?: RequestInit, options: UpstreamCallOptions = {}) {
    const signal = init?.signal ?? options.signal;
    return this.call(() => fetch(input, signal ? { ...init, signal } : init), options);
  }

  status(): UpstreamStatus {
    let waiting = 0;
    for (const tenant of this.tenants.values()) waiting += tenant.calls.length;
    return {
      name: this.name,
      rate: this.settings.rate,
      learnedRate: this.bucket.currentRate,
      pausedForMs: Math.max(0, this.pauseUntil - performance.now()),
      waiting,
    };
  }

  private slot(
    name: string,
    weight: number,
    cost: number,
    signal: AbortSignal | undefined,
    queuedAt: number,
  ): Promise<void> {
    let tenant = this.tenants.get(name);
    if (!tenant) this.tenants.set(name, (tenant = new TenantQueue(name, weight)));
    tenant.weight = weight;
    if (tenant.share === 0) this.shareLocally();
    const queue = tenant;
    return new Promise<void>((resolve, reject) => {
      const timeoutMs = this.settings.timeoutMs;
      const onAbort = () => this.abort(call, signal!.reason);
      const deadlineTimer = setTimeout(() => this.expire(call), timeoutMs);
      const call: PendingCall = {
        tenant: queue,
        cost,
        deadline: queuedAt + timeoutMs,
        queuedAt,
        stage: 'queued',
        start: resolve,
        fail: reject,
        cleanup: () => {
          clearTimeout(deadlineTimer);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      queue.calls.push(call);
      this.learner?.wake();
      this.schedulePump();
    });
  }

  /** Until the fleet's record answers: the budget split among the tenants waiting here. */
  private shareLocally(): void {
    let total = 0;
    for (const tenant of this.tenants.values()) total += tenant.weight;
    for (const tenant of this.tenants.values()) {
      tenant.share = (this.bucket.currentRate * tenant.weight) / total;
    }
  }

  private schedulePump(): void {
    if (this.pumpQueued || this.closed) return;
    this.pumpQueued = true;
    queueMicrotask(() => {
      this.pumpQueued = false;
      this.pump();
    });
  }

  private wakeIn(ms: number): void {
    const at = performance.now() + Math.max(0, ms);
    if (this.wakeTimer && this.wakeAt <= at) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wakeAt = Infinity;
        this.pump();
      },
      Math.max(0, ms),
    );
  }

  /**
   * Asks for slots for the calls whose tenants are within their pace, one call of each
   * tenant in turn (a burst of several tenants is shared, not taken by the first), each
   * tenant's calls in their order.
   */
  private pump(): void {
    const now = performance.now();
    if (now < this.pauseUntil) return this.wakeIn(this.pauseUntil - now);
    // A tenant may run ahead of its pace by the bucket's reach: a reservation's lookahead and,
    // at its share, its part of a full bucket (a lone tenant: the whole of it at once).
    const ahead = LOOKAHEAD_MS + (this.settings.capacity * 1000) / this.bucket.currentRate;
    let turn = [...this.tenants.values()].map((tenant) => ({ tenant, next: 0 }));
    while (turn.length > 0) {
      turn = turn.filter((place) => {
        const { tenant } = place;
        while (place.next < tenant.calls.length && tenant.calls[place.next].stage !== 'queued') {
          place.next++;
        }
        if (place.next >= tenant.calls.length) return false;
        if (tenant.nextAt > now + ahead) {
          this.wakeIn(tenant.nextAt - ahead - now);
          return false;
        }
        this.decide(tenant.calls[place.next++], now);
        return true;
      });
    }
    for (const tenant of this.tenants.values()) {
      if (tenant.calls.length === 0 && tenant.nextAt < now) this.tenants.delete(tenant.name);
    }
  }

  private decide(call: PendingCall, now: number): void {
    const { tenant, cost } = call;
    call.stage = 'deciding';
    const step = (cost * 1000) / tenant.share;
    tenant.nextAt = Math.max(tenant.nextAt, now - PACE_SLACK_MS) + step;
    const timeoutMs = Math.max(0, Math.min(LOOKAHEAD_MS, call.deadline - now));
    this.bucket.take(cost, timeoutMs).then(
      (decision) => this.decided(call, decision, step, timeoutMs),
      (error: unknown) => this.gone(call, error),
    );
  }

  private decided(call: PendingCall, decision: Decision, step: number, timeoutMs: number): void {
    if (call.stage === 'gone') {
      if (decision.allowed) this.bucket.giveBack(call.cost).catch(() => undefined);
      return;
    }
    const now = performance.now();
    if (decision.allowed) {
      if (decision.waitMs <= 0) return this.begin(call);
      call.stage = 'reserved';
      call.reserveTimer = setTimeout(() => this.reserved(call), decision.waitMs);
      return;
    }
    call.stage = 'queued';
    call.tenant.nextAt -= step;
    const retryMs = Math.max(1, decision.retryAfterMs);
    this.lastRetryMs = retryMs;
    if (isPause(decision) && now + retryMs > this.pauseUntil) {
      this.pauseUntil = now + retryMs;
      this.events.paused?.(this.name, retryMs);
    }
    // The whole wait was retry + the timeout asked: past the deadline, it cannot start in time.
    if (now + retryMs + timeoutMs > call.deadline + 1) {
      return this.busy(call, retryMs + timeoutMs - Math.max(0, call.deadline - now));
    }
    this.wakeIn(retryMs);
  }

  /** A reserved slot has come: unless a pause was heard meanwhile, the call starts. */
  private reserved(call: PendingCall): void {
    if (call.stage !== 'reserved') return;
    const now = performance.now();
    if (now < this.pauseUntil) {
      call.stage = 'queued';
      this.wakeIn(this.pauseUntil - now);
      return;
    }
    this.begin(call);
  }

  private begin(call: PendingCall): void {
    this.settle(call);
    call.start();
  }

  private settle(call: PendingCall): void {
    call.stage = 'gone';
    call.tenant.remove(call);
    call.cleanup();
    if (call.reserveTimer) clearTimeout(call.reserveTimer);
  }

  private gone(call: PendingCall, error: unknown): void {
    if (call.stage === 'gone') return;
    this.settle(call);
    call.fail(error);
  }

  private busy(call: PendingCall, retryAfterMs: number): void {
    this.gone(call, new UpstreamBusyError(this.name, Math.max(0, retryAfterMs)));
    this.events.busy?.(this.name);
  }

  private expire(call: PendingCall): void {
    // Reserved: its slot starts by the deadline. Deciding: the store is slower than the
    // deadline (a slot it grants late is given back, decided).
    if (call.stage === 'reserved' || call.stage === 'gone') return;
    const pausedFor = this.pauseUntil - performance.now();
    this.busy(call, Math.max(pausedFor, this.lastRetryMs));
  }

  private abort(call: PendingCall, reason: unknown): void {
    if (call.stage === 'reserved') this.bucket.giveBack(call.cost).catch(() => undefined);
    // A decision still out gives its slot back when it comes (decided).
    this.gone(call, reason);
  }

  /** @internal The upstream asked for a pause: no call of this server starts before its end. */
  pauseFor(ms: number): void {
    const until = performance.now() + ms;
    if (until <= this.pauseUntil) return;
    this.pauseUntil = until;
    this.events.paused?.(this.name, ms);
    this.bucket.pause(ms).catch(() => undefined);
  }

  /** @internal The fleet's budget: the bucket's rate and each waiting tenant's pace. */
  applyBudget(budget: LearnedBudget, backlogged: ReadonlyArray<readonly [string, number]>): void {
    this.bucket.setRate(budget.rate);
    backlogged.forEach(([name], at) => {
      const tenant = this.tenants.get(name);
      if (tenant && budget.shares[at] > 0) tenant.share = budget.shares[at];
    });
    this.events.learnedRate?.(this.name, budget.rate);
  }

  /** @internal */
  backlogged(): Array<readonly [string, number]> {
    const found: Array<readonly [string, number]> = [];
    for (const tenant of this.tenants.values()) {
      if (tenant.calls.length > 0) found.push([tenant.name, tenant.weight]);
    }
    return found;
  }

  /** @internal Rejects every waiting call and stops the timers (the app shuts down). */
  close(): void {
    this.closed = true;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.learner?.close();
    for (const tenant of this.tenants.values()) {
      for (const call of [...tenant.calls]) this.busy(call, 0);
    }
  }
}
