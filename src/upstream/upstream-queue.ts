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
}

/**
 * One tenant's calls on this server, first in first out, and its pace: it may ask for a
 * slot while `nextAt` (ms) is not too far ahead, and each slot asked moves `nextAt` on by
 * cost / share.
 */
export class TenantQueue {
  readonly calls: PendingCall[] = [];
  nextAt = 0;
  /** Calls a second this server may start for the tenant (its fair share of the budget). */
  share = 0;

  constructor(
    readonly name: string,
    public weight: number,
  ) {}

  remove(call: PendingCall): void {
    const at = this.calls.indexOf(call);
    if (at >= 0) this.calls.splice(at, 1);
  }
}
