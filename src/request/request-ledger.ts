import { ExecutionContext } from '@nestjs/common';
import { httpRequestOf } from '../context/http-context';
import type { HandlerOutcome } from '../contracts/limit-context';

/** Decides a request's limits that waited for the app's guards; throws what the guard would. */
type DeferredDecision = () => Promise<unknown>;

/** Gives back a request's concurrency slots; calling it again does nothing. */
export type SlotRelease = () => Promise<void>;

/** Keeps a request's concurrency slots held past their lease (a WebSocket connection's). */
export interface SlotRenewal {
  /** How often to renew, in ms: a third of the shortest lease, so two renewals may fail. */
  everyMs: number;
  /**
   * Renews every slot's lease. Resolves false when the store refused one: the slot was lost
   * (its lease ended while the store was unreachable and others took it, or the key is
   * blocked). An unanswered renewal resolves true: the next one tries again.
   */
  renew(): Promise<boolean>;
}

/** How a request ended: failed or not (count modes), and what `settle` sees. */
export interface RequestOutcome extends HandlerOutcome {
  failed: boolean;
}

/**
 * Settles a request's limits: `outcome` is how it ended. Resolves false when a `settle`
 * was invalid (logged; nothing corrected). Calling it again does nothing.
 */
export type Settle = (outcome: RequestOutcome) => Promise<boolean>;

/** The work the guard leaves to a later phase of the request; each piece is taken once. */
interface PendingWork {
  /** Limits whose key needs a user the app's own guards set: decided by RateLimitInterceptor. */
  deferred: DeferredDecision;
  /** Concurrency slots to give back once the request's work is over (concurrency-release.ts). */
  release: SlotRelease;
  /** The renewal of those slots, for a WebSocket connection, which holds them while it is open. */
  renew: SlotRenewal;
  /** `count` and `settle` corrections, once the request's outcome is known (settlement.ts). */
  settle: Settle;
}

const ledgers = new WeakMap<object, RequestLedger>();

/**
 * What one request's phases hand each other, in one place: the guard claims the request (so
 * a guard bound twice decides it once) and leaves work for later (a deferred decision, slots
 * to release, a settlement); the interceptor and the response's end take that work, each
 * piece once. The ledger lives on the object that identifies the request from the guard to
 * the interceptor, and goes with it.
 */
export class RequestLedger {
  private claimed = false;
  private readonly pending: Partial<PendingWork> = {};

  /**
   * The request's ledger, made on first use; undefined for a request Nest gives no object
   * for (nothing can be carried from one phase to the next).
   */
  static of(context: ExecutionContext): RequestLedger | undefined {
    const carrier = carrierOf(context);
    if (!carrier) return undefined;
    let ledger = ledgers.get(carrier);
    if (!ledger) ledgers.set(carrier, (ledger = new RequestLedger()));
    return ledger;
  }

  /** The work of `kind` the request still has pending, taken: it runs once. */
  static take<K extends keyof PendingWork>(
    context: ExecutionContext,
    kind: K,
  ): PendingWork[K] | undefined {
    const carrier = carrierOf(context);
    return carrier ? ledgers.get(carrier)?.take(kind) : undefined;
  }

  /**
   * Claims the decision of the request's limits: true the first time, false when another
   * RateLimitGuard (the global one, then `@UseGuards(RateLimitGuard)`) already decided or
   * deferred them, so a request is never counted twice.
   */
  claim(): boolean {
    if (this.claimed) return false;
    this.claimed = true;
    return true;
  }

  leave<K extends keyof PendingWork>(kind: K, work: PendingWork[K]): void {
    this.pending[kind] = work;
  }

  /** Whether `work` is still pending: no other phase has taken it. */
  holds<K extends keyof PendingWork>(kind: K, work: PendingWork[K]): boolean {
    return this.pending[kind] === work;
  }

  take<K extends keyof PendingWork>(kind: K): PendingWork[K] | undefined {
    const work = this.pending[kind];
    delete this.pending[kind];
    return work;
  }
}

/**
 * The object that identifies one request from the guard to the interceptor: the HTTP
 * request, or else the argument array Nest builds for each RPC message or WebSocket event
 * and hands to both (its first element may be a primitive payload or a socket shared by
 * many events).
 */
function carrierOf(context: ExecutionContext): object | undefined {
  const carrier = context.getType() === 'http' ? httpRequestOf(context) : context.getArgs();
  return typeof carrier === 'object' && carrier !== null ? carrier : undefined;
}
