/** A call waiting for its slot. */
export interface PendingCall {
  readonly tenant: TenantQueue;
  readonly cost: number;
  /** `performance.now()` by which it must start, else it is busy. */
  readonly deadline: number;
  readonly queuedAt: number;
  stage: 'queued' | 'deciding' | 'reserved' | 'gone';
  start(): void;
  fail(error: unknown): void;
  /** Stops listening to the signal and clears the deadline's timer. */
  cleanup(): void;
  reserveTimer?: NodeJS.Timeout;
  /** When its booked slot comes (`performance.now()` ms). */
  startAt?: number;
}

/**
 * One tenant's calls on this server, first in first out, and when it is worth asking the
 * book again (`askAt`, `performance.now()` ms): its first call's start is then within reach.
 */
export class TenantQueue {
  readonly calls: PendingCall[] = [];
  askAt = 0;

  constructor(
    readonly name: string,
    public weight: number,
  ) {}

  remove(call: PendingCall): void {
    const at = this.calls.indexOf(call);
    if (at >= 0) this.calls.splice(at, 1);
  }
}

export function waitingIn(tenants: Map<string, TenantQueue>): number {
  let waiting = 0;
  for (const tenant of tenants.values()) waiting += tenant.calls.length;
  return waiting;
}

/** What a call waiting for its slot is made of, and what ends it from outside. */
interface CallRequest {
  tenant: TenantQueue;
  cost: number;
  queuedAt: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Its deadline passed before it started. */
  onExpire(call: PendingCall): void;
  /** Its signal aborted. */
  onAbort(call: PendingCall, reason: unknown): void;
}

/** A call queued at the end of its tenant's queue, settled through `start` and `fail`. */
export function queueCall(
  request: CallRequest,
  start: () => void,
  fail: (error: unknown) => void,
): PendingCall {
  const { tenant, cost, queuedAt, timeoutMs, signal } = request;
  const onAbort = () => request.onAbort(call, signal!.reason);
  const deadlineTimer = setTimeout(() => request.onExpire(call), timeoutMs);
  const call: PendingCall = {
    tenant,
    cost,
    deadline: queuedAt + timeoutMs,
    queuedAt,
    stage: 'queued',
    start,
    fail,
    cleanup: () => {
      clearTimeout(deadlineTimer);
      signal?.removeEventListener('abort', onAbort);
    },
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  tenant.calls.push(call);
  return call;
}

/** A call out of its queue, its timers and listener gone: it starts or fails next. */
export function endCall(call: PendingCall): void {
  call.stage = 'gone';
  call.tenant.remove(call);
  call.cleanup();
  if (call.reserveTimer) clearTimeout(call.reserveTimer);
}
