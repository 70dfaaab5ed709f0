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

/** Until the fleet's record answers: the budget split among the tenants waiting here. */
export function shareLocally(tenants: Map<string, TenantQueue>, rate: number): void {
  let total = 0;
  for (const tenant of tenants.values()) total += tenant.weight;
  for (const tenant of tenants.values()) tenant.share = (rate * tenant.weight) / total;
}

/** The tenants with calls waiting, with their weights: what a server reports. */
export function backloggedOf(tenants: Map<string, TenantQueue>): Array<readonly [string, number]> {
  const found: Array<readonly [string, number]> = [];
  for (const tenant of tenants.values()) {
    if (tenant.calls.length > 0) found.push([tenant.name, tenant.weight]);
  }
  return found;
}

export function waitingIn(tenants: Map<string, TenantQueue>): number {
  let waiting = 0;
  for (const tenant of tenants.values()) waiting += tenant.calls.length;
  return waiting;
}
