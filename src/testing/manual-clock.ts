import { LimiterClock } from '../stores/memory/memory.store';

interface ScheduledWait {
  dueMs: number;
  resolve: () => void;
}

interface WaiterCount {
  count: number;
  resolve: () => void;
}

/** 2024-01-01T00:00:00Z: a fixed start, so headers and keys are the same on every run. */
const DEFAULT_START_MS = Date.UTC(2024, 0, 1);

/**
 * A clock that moves only when told to. Waits scheduled on it (a token-bucket request
 * waiting for its slot) resolve when {@link advance} passes their due time, without any
 * real sleeping, so a test of a 2 s wait takes microseconds.
 *
 * @example
 * ```ts
 * const clock = new ManualClock();
 * const store = createTestingStore({ clock });
 * clock.advance(2000); // every wait due within 2 s resolves
 * ```
 * @publicApi
 */
export class ManualClock implements LimiterClock {
  private currentMs: number;
  private waits: ScheduledWait[] = [];
  private waiterCounts: WaiterCount[] = [];

  constructor(startMs = DEFAULT_START_MS) {
    this.currentMs = startMs;
  }

  /** The clock's time in milliseconds since the epoch. */
  now(): number {
    return this.currentMs;
  }

  /** Resolves once the clock has been advanced by `milliseconds`; at once when <= 0. */
  sleep(milliseconds: number): Promise<void> {
    if (!(milliseconds > 0)) return Promise.resolve();
    return new Promise((resolve) => {
      this.waits.push({ dueMs: this.currentMs + milliseconds, resolve });
      this.waits.sort((a, b) => a.dueMs - b.dueMs);
      this.notifyWaiterCounts();
    });
  }

  /**
   * Moves the clock forward and resolves every wait that is due by then, earliest first.
   * The awaiting code resumes on the next microtask: `await` what you are testing after this.
   */
  advance(milliseconds: number): void {
    if (!(milliseconds >= 0) || !Number.isFinite(milliseconds)) {
      throw new RangeError(`ManualClock.advance: milliseconds must be >= 0, got ${milliseconds}`);
    }
    this.currentMs += milliseconds;
    const due = this.waits.filter((wait) => wait.dueMs <= this.currentMs);
    this.waits = this.waits.filter((wait) => wait.dueMs > this.currentMs);
    for (const wait of due) wait.resolve();
  }

  /** Number of waits scheduled and not yet due. */
  get pendingWaits(): number {
    return this.waits.length;
  }

  /**
   * Resolves once at least `count` waits are scheduled: a request sent over HTTP reaches
   * the guard some time later, and advancing before it waits would not release it.
   */
  whenWaiting(count = 1): Promise<void> {
    if (this.waits.length >= count) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiterCounts.push({ count, resolve });
    });
  }

  private notifyWaiterCounts(): void {
    const ready = this.waiterCounts.filter((waiter) => this.waits.length >= waiter.count);
    this.waiterCounts = this.waiterCounts.filter((waiter) => this.waits.length < waiter.count);
    for (const waiter of ready) waiter.resolve();
  }
}
