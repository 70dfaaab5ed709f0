import { Decision } from '../contracts/decision';
import { UpstreamBusyError } from './upstream-busy.error';
import { isPause, UpstreamBucket } from './upstream-bucket';
import { UpstreamEvents } from './upstream-events';
import { UpstreamSettings } from './upstream.options';
import { backloggedOf, PendingCall, shareLocally, TenantQueue, waitingIn } from './upstream-queue';

/** How far ahead a slot is reserved (the longest wait on a slot held), and how far behind its pace a tenant may fall and catch up. */
const [LOOKAHEAD_MS, PACE_SLACK_MS] = [100, 50];

/**
 * When each waiting call of one upstream on this server starts: tenants paced at their
 * shares, one call of each in turn, slots reserved at most LOOKAHEAD_MS ahead from the bucket,
 * a pause heard (from an answer, or a denial by the bucket's block) holding every call back,
 * deadlines and aborts ending calls that have not started.
 */
export class SlotScheduler {
  readonly tenants = new Map<string, TenantQueue>();
  pauseUntil = 0;
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = Infinity;
  private pumpQueued = false;
  private lastRetryMs = 0;
  private closed = false;
  /** Called with each call queued: the learner reports while calls wait. */
  onQueued?: () => void;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly bucket: UpstreamBucket,
    private readonly events: UpstreamEvents,
  ) {}

  private get name(): string {
    return this.settings.name;
  }

  /** Resolves when the call may start; rejects when it is busy, aborted or the store fails. */
  slot(
    name: string,
    weight: number,
    cost: number,
    signal: AbortSignal | undefined,
    queuedAt: number,
  ): Promise<void> {
    let tenant = this.tenants.get(name);
    if (!tenant) this.tenants.set(name, (tenant = new TenantQueue(name, weight)));
    tenant.weight = weight;
    if (tenant.share === 0) shareLocally(this.tenants, this.bucket.currentRate);
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
      this.onQueued?.();
      this.schedulePump();
    });
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

  /** No call of this server starts before `until` (performance.now() ms). */
  holdUntil(until: number): boolean {
    if (until <= this.pauseUntil) return false;
    this.pauseUntil = until;
    return true;
  }

  /** Each waiting tenant's pace, from the fleet's budget. */
  pace(budget: { shares: number[] }, backlogged: ReadonlyArray<readonly [string, number]>): void {
    backlogged.forEach(([name], at) => {
      const tenant = this.tenants.get(name);
      if (tenant && budget.shares[at] > 0) tenant.share = budget.shares[at];
    });
  }

  backlogged(): Array<readonly [string, number]> {
    return backloggedOf(this.tenants);
  }

  waiting(): number {
    return waitingIn(this.tenants);
  }

  /** Every waiting call ends busy, and the timers stop. */
  close(): void {
    this.closed = true;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    for (const tenant of this.tenants.values()) {
      for (const call of [...tenant.calls]) this.busy(call, 0);
    }
  }
}
