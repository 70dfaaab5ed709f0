/** One pending deadline: whichever of `settle` and the expiry comes first wins. */
export class Deadline {
  /** Dropped once settled: it holds the request until then, and the queue may keep the deadline longer. */
  private onExpire: (() => void) | null;

  constructor(
    private expiresAtMs: number,
    onExpire: () => void,
  ) {
    this.onExpire = onExpire;
  }

  get atMs(): number {
    return this.expiresAtMs;
  }

  /** Moves the expiry later (never earlier): the work started later than the deadline did. */
  postpone(atMs: number): void {
    if (atMs > this.expiresAtMs) this.expiresAtMs = atMs;
  }

  /** Marks the work done; false when the deadline had already expired. */
  settle(): boolean {
    if (!this.onExpire) return false;
    this.onExpire = null;
    return true;
  }

  /** Runs `onExpire` unless the work was settled first. */
  expire(): void {
    const onExpire = this.onExpire;
    if (onExpire && this.settle()) onExpire();
  }

  get isSettled(): boolean {
    return this.onExpire === null;
  }
}

/** Settled deadlines at the head of the queue before it is compacted. */
const COMPACT_AT = 1024;

/**
 * Deadlines that all last `durationMs`, sharing one timer.
 *
 * Every store decision is bounded by `storeTimeout`, and a timer per decision would be set
 * and cleared on every request. Since every deadline has the same duration, they expire in
 * the order they start: a queue in start order, and one timer set for the oldest unsettled
 * deadline, serve them all. Settled deadlines are dropped when the timer next passes them.
 * (A postponed deadline stays in its place, and the ones behind it wait for it: they were
 * postponed about as much where work is sent in the order it starts. On a Cluster each node
 * has its batcher, so one behind may be judged late only when the one before it is.)
 *
 * A deadline is judged only after the I/O already waiting has been read: when the timer
 * fires, the deadlines due then expire on `setImmediate`, after the poll phase of the
 * event loop. A busy app (a burst of requests) runs its timers late, and by then the
 * answers it waits for may be sitting in the socket, unread: they must win.
 */
export class DeadlineQueue {
  private readonly deadlines: Deadline[] = [];
  private head = 0;
  /** The timer, or true while the deadlines it found due wait for the I/O to be read. */
  private timer?: NodeJS.Timeout | true;
  private readonly sweep = (): void => {
    const dueAtMs = this.now();
    this.timer = true;
    this.afterIo(() => this.expireDue(dueAtMs));
  };

  constructor(
    private readonly durationMs: number,
    private readonly now: () => number = () => performance.now(),
    /** Runs a callback once the I/O waiting now has been read (its callbacks run first). */
    // Not unref'd: an unref'd immediate lets the poll phase block until other I/O comes.
    private readonly afterIo: (callback: () => void) => void = (callback) => {
      setImmediate(callback);
    },
  ) {}

  /** A deadline `durationMs` from now that calls `onExpire` unless settled first. */
  start(onExpire: () => void): Deadline {
    const deadline = new Deadline(this.now() + this.durationMs, onExpire);
    this.deadlines.push(deadline);
    if (!this.timer) this.arm(deadline.atMs);
    return deadline;
  }

  private arm(atMs: number): void {
    this.timer = setTimeout(this.sweep, Math.max(0, atMs - this.now()));
    // A pending decision belongs to a request, which keeps the process alive by itself.
    this.timer.unref();
  }

  /** Expires the deadlines due at `dueAtMs`, when the timer fired. */
  private expireDue(dueAtMs: number): void {
    this.timer = undefined;
    while (this.head < this.deadlines.length) {
      const deadline = this.deadlines[this.head];
      if (!deadline.isSettled && deadline.atMs > dueAtMs) break;
      this.head++;
      deadline.expire();
    }
    if (this.head === this.deadlines.length) {
      this.deadlines.length = 0;
      this.head = 0;
      return;
    }
    if (this.head >= COMPACT_AT) {
      this.deadlines.splice(0, this.head);
      this.head = 0;
    }
    // An expiry callback may have started a deadline, arming the timer for it: the oldest
    // pending deadline comes first.
    if (this.timer) clearTimeout(this.timer as NodeJS.Timeout);
    this.arm(this.deadlines[this.head].atMs);
  }
}
