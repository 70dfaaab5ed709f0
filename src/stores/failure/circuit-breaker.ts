/** Consecutive timeouts after which the store counts as down. */
export const TIMEOUTS_TO_OPEN = 3;
/** While down, one decision in this many ms still goes to the store, to notice its return. */
export const PROBE_INTERVAL_MS = 250;

/**
 * Stops sending decisions to a store that stopped answering. A frozen Redis (SIGSTOP, a
 * silent partition) keeps its connections, so only timeouts reveal it; without a breaker
 * every request would wait the whole `storeTimeout` and pile commands up for Redis to run
 * when it resumes. After {@link TIMEOUTS_TO_OPEN} timeouts in a row decisions fail at once,
 * except one probe per {@link PROBE_INTERVAL_MS}; any answer closes the breaker.
 */
export class CircuitBreaker {
  private timeouts = 0;
  private open = false;
  private nextProbeAtMs = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whether this decision may go to the store (while open: only as the next probe). */
  allows(): boolean {
    if (!this.open) return true;
    const nowMs = this.now();
    if (nowMs < this.nextProbeAtMs) return false;
    this.nextProbeAtMs = nowMs + PROBE_INTERVAL_MS;
    return true;
  }

  /** The store answered: whatever it said, it is there. */
  answered(): void {
    this.timeouts = 0;
    this.open = false;
  }

  timedOut(): void {
    this.timeouts++;
    if (!this.open && this.timeouts >= TIMEOUTS_TO_OPEN) {
      this.open = true;
      this.nextProbeAtMs = this.now() + PROBE_INTERVAL_MS;
    }
  }

  get isOpen(): boolean {
    return this.open;
  }
}
