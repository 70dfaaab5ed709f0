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
