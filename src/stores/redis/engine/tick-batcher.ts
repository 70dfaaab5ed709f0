/**
 * Collects what is added and hands it over in batches that grow with load. A batch leaves at
 * the end of the turn it was added in (`setImmediate`: after the I/O callbacks of this turn,
 * so the requests that arrived together on many sockets share a batch; never a timer, so a
 * lone item waits for nothing) - unless `maxInFlight` batches handed over are still being
 * worked on: then what is added waits, and leaves together the moment one of them is done.
 * A batch that reaches `maxSize` is handed over at once, whatever is in flight.
 */
export class TickBatcher<T> {
  private queue: T[] = [];
  private scheduled = false;
  private inFlight = 0;
  /** How many items at the head of the queue `onHeld` was told of. */
  private told = 0;
  private readonly flushScheduled = (): void => {
    this.scheduled = false;
    if (this.inFlight < this.maxInFlight) return this.flush();
    this.onHeld?.(this.queue, this.told);
    this.told = this.queue.length;
  };
  /**
   * Runs in the callback of the reply that ended a batch, before the event loop checks
   * deadlines: what waited for it leaves now, so that its wait ends as soon as Redis answers.
   */
  private readonly done = (): void => {
    this.inFlight--;
    if (this.inFlight < this.maxInFlight) this.flush();
  };

  /**
   * `send` hands a batch over; the promise it returns, if any, says when that batch is done
   * (settled either way), and `maxInFlight` bounds how many such batches are not.
   */
  constructor(
    private readonly maxSize: number,
    private readonly send: (batch: T[]) => Promise<unknown> | void,
    private readonly maxInFlight = Infinity,
    /** Told of the items (from index `from`) whose turn ended while they had to wait. */
    private readonly onHeld?: (queue: readonly T[], from: number) => void,
  ) {}

  /** `mayFlush` false keeps a batch open past `maxSize` (a group must not be split). */
  add(item: T, mayFlush = true): void {
    this.queue.push(item);
    if (this.queue.length >= this.maxSize && mayFlush) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushScheduled);
    }
  }

  flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.told = 0;
    const pending = this.send(batch);
    if (pending) {
      this.inFlight++;
      pending.then(this.done, this.done);
    }
  }
}
