import { LRUCache } from 'lru-cache';
import { Decision } from '../../contracts/decision';

interface Denial {
  /** The limit that denied: a denial of one limit says nothing about another on the same key. */
  limit: string;
  scope: string;
  decision: Decision;
  atMs: number;
  untilMs: number;
}

/** A key whose state changed (reset, refund, block), heard at `atMs` (performance.now()). */
interface Forgotten {
  forgottenAtMs: number;
}

/**
 * Remembers, per key, a denial until its retry time, so a flood from one denied key costs
 * Redis nothing. This is exact across servers: in every algorithm that opts in, a denial
 * can end early only by a reset, refund or block, which its server announces (see
 * DenialBroadcast) and every server forgets. Only the same limit (its script and
 * parameters) and the same request shape (`scope`) are answered: a token bucket that denies
 * 3 permits may still grant 1, and a limit of 10 a second may allow what one of 1 a second
 * denied. Times are local durations, so clocks need not agree.
 *
 * A denial is remembered only if it was asked for after every change of its key heard so
 * far, and after the announcements could be heard at all: its reply travels on another
 * connection than the announcements, so a denial Redis decided just before a reset may
 * arrive after the reset's announcement, and must not outlive it. Each key forgotten keeps
 * the time it was (`Forgotten`), and `heardSinceMs` is when announcements started to be
 * heard (Infinity while they are not); a denial asked for before either is not remembered.
 */
export class DenialCache {
  private readonly entries = new LRUCache<string, Denial | Forgotten>({
    max: 10_000,
    // A forgotten key pushed out of the cache takes its time with it: from then on, only
    // denials asked for after that time can be trusted.
    dispose: (entry, _key, reason) => {
      if (reason === 'evict' && 'forgottenAtMs' in entry) {
        this.heardSinceMs = Math.max(this.heardSinceMs, entry.forgottenAtMs);
      }
    },
  });
  private heardSinceMs = Infinity;

  constructor(
    private readonly now: () => number,
    /** The clock of `askedAtMs` and of announcements: local, monotonic. */
    private readonly localNow: () => number = () => performance.now(),
  ) {}

  get(key: string, limit: string, scope: string): Decision | undefined {
    // Asked before every decision: with nothing remembered, not even the lookup.
    if (this.entries.size === 0) return undefined;
    const denial = this.entries.get(key);
    if (!denial || !('decision' in denial)) return undefined;
    if (denial.limit !== limit || denial.scope !== scope) return undefined;
    const nowMs = this.now();
    if (nowMs >= denial.untilMs) {
      this.entries.delete(key);
      return undefined;
    }
    const elapsedMs = nowMs - denial.atMs;
    return {
      ...denial.decision,
      resetMs: Math.max(0, denial.decision.resetMs - elapsedMs),
      retryAfterMs: denial.untilMs - nowMs,
    };
  }

  /** The key's state changed: drops what is remembered of it, and notes when. */
  forget(key: string): void {
    this.entries.set(key, { forgottenAtMs: this.localNow() });
  }

  /** Announcements are heard from now on (again): everything remembered before is dropped. */
  hearing(): void {
    this.entries.clear();
    this.heardSinceMs = this.localNow();
  }

  /** Announcements are not heard (the connection is lost): nothing is remembered. */
  deaf(): void {
    this.entries.clear();
    this.heardSinceMs = Infinity;
  }

  /** `askedAtMs`: when the decision was sent to Redis (`performance.now()`). */
  remember(key: string, limit: string, scope: string, decision: Decision, askedAtMs: number): void {
    if (decision.allowed || decision.retryAfterMs <= 0) return;
    if (askedAtMs < this.heardSinceMs) return;
    const previous = this.entries.get(key);
    if (previous && 'forgottenAtMs' in previous && askedAtMs <= previous.forgottenAtMs) return;
    const atMs = this.now();
    this.entries.set(key, { limit, scope, decision, atMs, untilMs: atMs + decision.retryAfterMs });
  }
}
