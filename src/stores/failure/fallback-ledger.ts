import { LRUCache } from 'lru-cache';
import { Decision } from '../../contracts/decision';

/** Most acquires remembered: bounded memory whatever the outage; the oldest go first. */
const MAX_ENTRIES = 100_000;

/** The parts of a request that tell its permits and, where it has one, its own id. */
interface RequestShape {
  permits?: unknown;
  id?: unknown;
}

/**
 * What the in-memory insurance store ('fallback') handed out, so that giving it back goes
 * there too. A permit taken from memory during an outage was never counted in Redis: a
 * refund or a release made after Redis is back must not give Redis a permit it never took
 * (a `count: 'failures'` limit would be emptied, a concurrency slot in memory never freed).
 *
 * Per key, and per request id where the acquire had one (a sliding-log member, a
 * concurrency slot): the permits taken in memory and not yet given back, for as long as the
 * memory decision said its permits stay taken (its `resetMs`). A give-back with an id goes
 * where that id was taken; one without (a factory `refund()`) goes to memory while the key
 * has permits taken there.
 */
export class FallbackLedger {
  private readonly taken = new LRUCache<string, number>({ max: MAX_ENTRIES });

  /** An acquire the fallback allowed. */
  took(key: string, request: unknown, decision: Decision): void {
    if (!decision.allowed) return;
    const ttl = Math.max(1, Math.ceil(decision.resetMs));
    const permits = permitsOf(request);
    const id = idOf(request);
    if (id !== undefined) this.add(`${key}\n${id}`, permits, ttl);
    this.add(key, permits, ttl);
  }

  /** Whether this give-back is for permits memory handed out (then counted as given back). */
  givesBackToMemory(key: string, request: unknown): boolean {
    const id = idOf(request);
    const permits = permitsOf(request);
    if (id !== undefined && !this.take(`${key}\n${id}`, permits)) return false;
    return this.take(key, permits) || id !== undefined;
  }

  private add(entry: string, permits: number, ttl: number): void {
    this.taken.set(entry, (this.taken.get(entry) ?? 0) + permits, { ttl });
  }

  /** Counts `permits` as given back from `entry`; false when it has none taken. */
  private take(entry: string, permits: number): boolean {
    const left = this.taken.get(entry);
    if (left === undefined) return false;
    if (left > permits) this.taken.set(entry, left - permits, { noUpdateTTL: true });
    else this.taken.delete(entry);
    return true;
  }
}

function idOf(request: unknown): string | undefined {
  const id = (request as RequestShape | undefined)?.id;
  return typeof id === 'string' ? id : undefined;
}

function permitsOf(request: unknown): number {
  const permits = (request as RequestShape | undefined)?.permits;
  return typeof permits === 'number' && permits > 0 ? permits : 1;
}
