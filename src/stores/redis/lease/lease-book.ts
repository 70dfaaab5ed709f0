import type { DecisionCall } from '../../../algorithms/decision-call';
import { Decision } from '../../../contracts/decision';
import { LimiterAlgorithm } from '../../../algorithms/limiter-algorithm';
import {
  Leasable,
  leasableOf,
  leasedPermits,
  LeaseParams,
} from '../../../algorithms/state-ops/lease-option';
import { BlockParams } from '../../../algorithms/state-ops/state-ops.model';
import { Lease } from './lease';
import { LeaseRedis } from './lease-fetch';

type LeasedParams = LeaseParams & BlockParams;

/** A lease's longest life: what a server did not use goes back within it. */
export const LEASE_LIFETIME_MS = 1000;

/** How the book decides in Redis: the store's own evaluate, which no lease answers. */
type InRedis = (call: DecisionCall<any, any, any>) => Promise<Decision>;

/** What identifies a limit by its engine arguments, whatever object carries them. */
type LimitIdentity = (
  algorithm: LimiterAlgorithm<any, any, any>,
  params: unknown,
  perRequest: boolean,
) => string;

/**
 * A store's leases (docs/hot-keys.md): one per limit (its arguments and lease size) and key,
 * made on the first request a lease may serve, forgotten once it has ended with nothing
 * left. A limit is known by its arguments rather than its params object: a limit from the
 * customer's plan makes its params for each request, and a tenant's requests share its
 * lease as long as its plan's values stay the same.
 */
export class LeaseBook {
  private readonly leases = new Map<string, Map<string, Lease>>();
  /** Per key, the leases ended and still giving back what they did not use. */
  private readonly ending = new Map<string, Promise<unknown>>();

  constructor(
    private readonly inRedis: InRedis,
    /**
     * Whether this server hears other servers' resets (denial-broadcast.ts), or when it will
     * know; asking starts listening. While it does not, no lease serves: one could outlive a
     * reset nobody heard.
     */
    private readonly hearsResets: (deadlineMs: number) => boolean | Promise<unknown>,
    private readonly identify: LimitIdentity,
  ) {}

  /**
   * The decision of a request a lease serves, or undefined for one that Redis must decide:
   * a limit without `lease`, a request that waits or peeks, a member of a group (all or
   * nothing is decided in Redis); and every request while this server does not hear resets.
   */
  decide(call: DecisionCall<any, any, any>): Promise<Decision> | undefined {
    const { algorithm, key, params, request, deadlineMs = Infinity } = call;
    const { leasePermits: size, blockMicros, blockStepsMicros } = (params ?? {}) as LeasedParams;
    // A lease asks for more than its requests take: a block would start on a denial no
    // request met, so a limit with blocks decides each request in Redis.
    if (!size || blockMicros || blockStepsMicros) return undefined;
    const leasable = leasableOf(algorithm);
    const permits = leasedPermits(request);
    if (!leasable || permits === undefined) return undefined;
    const hearing = this.hearsResets(deadlineMs);
    if (hearing === false) return undefined;
    // The lease's size is not among the engine's arguments: a new size is a new lease.
    const id = `${this.identify(algorithm, params, call.partition !== undefined)} ${size}`;
    const take = () =>
      this.leaseOf(algorithm, leasable, key, params, id, size).take(
        permits,
        request,
        deadlineMs,
        call.onSent,
      );
    if (hearing === true) return take();
    // Once heard (or the deadline come), the lease serves, or Redis decides.
    return hearing.then(() =>
      this.hearsResets(-Infinity) === true ? take() : this.inRedis({ ...call, deadlineMs }),
    );
  }

  /** Forgets the key's leased permits: it was reset or blocked. */
  drop(key: string): void {
    for (const byKey of this.leases.values()) byKey.get(key)?.drop();
  }

  /** Forgets every lease's permits: resets went unheard, any of them may be gone. */
  dropAll(): void {
    for (const byKey of this.leases.values()) for (const lease of byKey.values()) lease.drop();
  }

  /**
   * Ends every lease: what was not used goes back to Redis (the app closes, an override).
   * Waits one lease lifetime at most: a Redis that does not answer by then keeps the
   * permits until their window ends, and the app still closes.
   */
  async endAll(): Promise<void> {
    for (const byKey of this.leases.values()) {
      for (const [key, lease] of byKey) this.retire(key, lease);
    }
    this.leases.clear();
    let timer: NodeJS.Timeout | undefined;
    const lifetime = new Promise((resolve) => (timer = setTimeout(resolve, LEASE_LIFETIME_MS)));
    await Promise.race([Promise.all(this.ending.values()), lifetime]);
    clearTimeout(timer);
  }

  /** The permits this server holds on `key` and has not handed out. */
  unusedOn(key: string): number {
    let unused = 0;
    for (const byKey of this.leases.values()) unused += byKey.get(key)?.unused ?? 0;
    return unused;
  }

  private leaseOf(
    algorithm: LimiterAlgorithm<any, any, any>,
    leasable: Leasable,
    key: string,
    params: unknown,
    id: string,
    size: number,
  ): Lease {
    let byKey = this.leases.get(id);
    if (!byKey) this.leases.set(id, (byKey = new Map()));
    let lease = byKey.get(key);
    if (!lease) {
      const redis: LeaseRedis = {
        acquire: (request, deadlineMs, onSent) =>
          this.inRedis({ algorithm, key, params, request, deadlineMs, onSent }),
        // Late, Redis skips it: the permits stay taken, the servers admit fewer, never more.
        giveBack: (permits, window) =>
          this.inRedis({
            algorithm: leasable.refund,
            key,
            params,
            request: { permits, ...window },
            deadlineMs: performance.now() + LEASE_LIFETIME_MS,
          }),
      };
      const forget = () => {
        if (byKey!.get(key) === lease) byKey!.delete(key);
        if (byKey!.size === 0 && this.leases.get(id) === byKey) this.leases.delete(id);
      };
      const ready = this.retireOthersOn(key, id);
      lease = new Lease(size, redis, LEASE_LIFETIME_MS, leasable.endsWithWindow, forget, ready);
      byKey.set(key, lease);
    }
    return lease;
  }

  /**
   * Ends the key's leases made under other parameters (a live override replaced them):
   * their permits were counted under the old limit. Resolves when they, and every lease of
   * the key ended before, have given back what they did not use: a new lease waits for it.
   */
  private retireOthersOn(key: string, id: string): Promise<unknown> | undefined {
    for (const [other, byKey] of this.leases) {
      const lease = other === id ? undefined : byKey.get(key);
      if (!lease) continue;
      byKey.delete(key);
      if (byKey.size === 0) this.leases.delete(other);
      this.retire(key, lease);
    }
    return this.ending.get(key);
  }

  private retire(key: string, lease: Lease): void {
    const ended = Promise.all([this.ending.get(key), lease.retire()]);
    this.ending.set(key, ended);
    void ended.then(() => {
      if (this.ending.get(key) === ended) this.ending.delete(key);
    });
  }
}
