import { UpstreamBusyError } from './upstream-busy.error';
import { UpstreamBucket } from './upstream-bucket';
import { UpstreamEvents } from './upstream-events';
import { UpstreamSettings } from './upstream.options';
import { SlotAnswer, SlotAsk } from './upstream-slots.model';
import { endCall, PendingCall, queueCall, TenantQueue, waitingIn } from './upstream-queue';

/** The calls of one tenant sent in one ask, in their order. */
type Sent = { tenant: TenantQueue; calls: PendingCall[] };

/**
 * When each waiting call of one upstream on this server starts. The calls waiting in one turn
 * of the event loop are booked in one ask to the shared book (upstream-slots.model.ts), every
 * tenant's in order; a booked call waits for its start here, a call not booked waits until
 * its tenant's first call comes within reach of the book, and only then asks again. A pause
 * heard (from an answer, or from the book) holds every call back; deadlines and aborts end
 * calls that have not started.
 */
export class SlotScheduler {
  readonly tenants = new Map<string, TenantQueue>();
  pauseUntil = 0;
  private wakeTimer?: NodeJS.Timeout;
  private wakeAt = Infinity;
  private pumpQueued = false;
  private asking = false;
  private askAgain = false;
  private lastNextMs = 0;
  private closed = false;
  /** Called with each call queued: the learner reports while calls wait. */
  onQueued?: () => void;

  constructor(
    private readonly settings: UpstreamSettings,
    private readonly bucket: UpstreamBucket,
    private readonly events: UpstreamEvents,
  ) {}

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
    const request = {
      tenant,
      cost,
      queuedAt,
      timeoutMs: this.settings.timeoutMs,
      signal,
      onExpire: (call: PendingCall) => this.expire(call),
      onAbort: (call: PendingCall, reason: unknown) => this.abort(call, reason),
    };
    return new Promise<void>((resolve, reject) => {
      queueCall(request, resolve, reject);
      this.onQueued?.();
      this.schedulePump();
    });
  }

  /** The calls queued in this turn leave together, in one ask. */
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

  /** Asks the book for the queued calls of every tenant whose first call is within reach. */
  private pump(): void {
    if (this.closed) return;
    const now = performance.now();
    if (now < this.pauseUntil) return this.wakeIn(this.pauseUntil - now);
    // One ask at a time: the calls queued meanwhile go in the next one.
    if (this.asking) {
      this.askAgain = true;
      return;
    }
    const asks: SlotAsk[] = [];
    const sent: Sent[] = [];
    for (const tenant of this.tenants.values()) {
      const queued = tenant.calls.filter((call) => call.stage === 'queued');
      if (queued.length === 0) {
        if (tenant.calls.length === 0 && tenant.askAt <= now) this.tenants.delete(tenant.name);
        continue;
      }
      if (tenant.askAt > now) {
        this.wakeIn(tenant.askAt - now);
        continue;
      }
      for (const call of queued) call.stage = 'deciding';
      const calls = queued.map(
        (call) => [call.cost, Math.max(0, call.deadline - now) * 1000] as const,
      );
      asks.push({ tenant: tenant.name, weight: tenant.weight, calls });
      sent.push({ tenant, calls: queued });
    }
    if (asks.length === 0) return;
    this.asking = true;
    this.bucket.take(asks).then(
      (answer) => this.booked(answer, sent),
      (error: unknown) => this.failed(sent, error),
    );
  }

  private asked(): void {
    this.asking = false;
    if (this.askAgain) {
      this.askAgain = false;
      this.schedulePump();
    }
  }

  private failed(sent: Sent[], error: unknown): void {
    for (const { calls } of sent) for (const call of calls) this.gone(call, error);
    this.asked();
  }

  private booked(answer: SlotAnswer, sent: Sent[]): void {
    const now = performance.now();
    if (answer.pausedMicros > 0) {
      const pausedMs = answer.pausedMicros / 1000;
      if (this.holdUntil(now + pausedMs)) this.events.paused?.(this.settings.name, pausedMs);
    }
    const reachMs = answer.horizonMicros / 2000;
    sent.forEach(({ tenant, calls }, at) => {
      const { starts, nextMicros } = answer.grants[at];
      starts.forEach((startMicros, index) => this.reserve(calls[index], startMicros / 1000));
      const nextMs =
        answer.pausedMicros > 0 ? this.pauseUntil - now : Math.max(0, nextMicros / 1000);
      for (const call of calls.slice(starts.length)) {
        if (call.stage !== 'deciding') continue;
        call.stage = 'queued';
        this.lastNextMs = nextMs;
        // Its slot comes after its deadline: it cannot start in time.
        if (now + nextMs > call.deadline + 1) this.busy(call, nextMs);
      }
      tenant.askAt = now + Math.max(1, nextMs - reachMs);
      if (tenant.calls.some((call) => call.stage === 'queued')) this.wakeIn(tenant.askAt - now);
    });
    this.asked();
  }

  /** A slot booked for `call`, `inMs` from now. */
  private reserve(call: PendingCall, inMs: number): void {
    if (call.stage === 'gone') {
      this.bucket.giveBack(call.cost).catch(() => undefined);
      return;
    }
    call.stage = 'reserved';
    call.startAt = performance.now() + Math.max(0, inMs);
    if (inMs <= 0) return this.reserved(call);
    call.reserveTimer = setTimeout(() => this.reserved(call), inMs);
  }

  /**
   * A booked slot has come: unless a pause was heard meanwhile, a call starts: the first
   * booked of its tenant (first in first out, whatever the jitter between the book's clock
   * and this server's timers), which hands its own later slot to this one.
   */
  private reserved(call: PendingCall): void {
    if (call.stage !== 'reserved') return;
    const now = performance.now();
    if (now < this.pauseUntil) {
      call.stage = 'queued';
      this.wakeIn(this.pauseUntil - now);
      return;
    }
    const first = call.tenant.calls.find((waiting) => waiting.stage === 'reserved')!;
    if (first !== call) {
      clearTimeout(first.reserveTimer);
      call.startAt = first.startAt;
      call.reserveTimer = setTimeout(() => this.reserved(call), Math.max(0, first.startAt! - now));
    }
    this.begin(first);
  }

  private begin(call: PendingCall): void {
    endCall(call);
    call.start();
  }

  private gone(call: PendingCall, error: unknown): void {
    if (call.stage === 'gone') return;
    endCall(call);
    call.fail(error);
  }

  private busy(call: PendingCall, retryAfterMs: number): void {
    this.gone(call, new UpstreamBusyError(this.settings.name, Math.max(0, retryAfterMs)));
    this.events.busy?.(this.settings.name);
  }

  private expire(call: PendingCall): void {
    // Reserved: its slot starts by the deadline. Deciding: the store is slower than the
    // deadline (a slot it books late is given back, in reserve).
    if (call.stage === 'reserved' || call.stage === 'gone') return;
    const pausedFor = this.pauseUntil - performance.now();
    this.busy(call, Math.max(pausedFor, this.lastNextMs));
  }

  private abort(call: PendingCall, reason: unknown): void {
    if (call.stage === 'reserved') this.bucket.giveBack(call.cost).catch(() => undefined);
    // An ask still out gives its slot back when it comes (reserve).
    this.gone(call, reason);
  }

  /** No call of this server starts before `until` (performance.now() ms). */
  holdUntil(until: number): boolean {
    if (until <= this.pauseUntil) return false;
    this.pauseUntil = until;
    this.wakeIn(until - performance.now());
    return true;
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
