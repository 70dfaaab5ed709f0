import { LRUCache } from 'lru-cache';
import { Decision } from '../algorithms/decision';

interface Denial {
  /** The limit that denied: a denial of one limit says nothing about another on the same key. */
  limit: string;
  scope: string;
  decision: Decision;
  atMs: number;
  untilMs: number;
}

/**
 * Remembers, per key, a denial until its retry time, so a flood from one denied key costs
 * Redis nothing. This is exact across servers: in every algorithm that opts in, a denied
 * state can end only by time passing (other servers can only add requests or
 * reservations). Only the same limit (its script and parameters) and the same request
 * shape (`scope`) are answered: a token bucket that denies 3 permits may still grant 1, and
 * a limit of 10 a second may allow what one of 1 a second denied. Times are local
 * durations, so clocks need not agree.
 */
export class DenialCache {
  private readonly denials = new LRUCache<string, Denial>({ max: 10_000 });

  constructor(private readonly now: () => number) {}

  get(key: string, limit: string, scope: string): Decision | undefined {
    const denial = this.denials.get(key);
    if (!denial || denial.limit !== limit || denial.scope !== scope) return undefined;
    const nowMs = this.now();
    if (nowMs >= denial.untilMs) {
      this.denials.delete(key);
      return undefined;
    }
    const elapsedMs = nowMs - denial.atMs;
    return {
      ...denial.decision,
      resetMs: Math.max(0, denial.decision.resetMs - elapsedMs),
      retryAfterMs: denial.untilMs - nowMs,
    };
  }

  /** Drops what is remembered of the key (of every key when none is named): its state changed. */
  forget(key?: string): void {
    if (key === undefined) this.denials.clear();
    else this.denials.delete(key);
  }

  remember(key: string, limit: string, scope: string, decision: Decision): void {
    if (decision.allowed || decision.retryAfterMs <= 0) return;
    const atMs = this.now();
    this.denials.set(key, { limit, scope, decision, atMs, untilMs: atMs + decision.retryAfterMs });
  }
}
