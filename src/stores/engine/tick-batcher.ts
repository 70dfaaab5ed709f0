/**
 * Collects what is added during one turn of the event loop and hands it over as one batch
 * at the end of the turn (`setImmediate`: after the I/O callbacks of this turn, so the
 * requests that arrived together on many sockets share a batch; never a timer, so a lone
 * item waits for nothing). A batch that reaches `maxSize` is handed over at once.
 */
export class TickBatcher<T> {
  private queue: T[] = [];
  private scheduled = false;
  private readonly flushScheduled = (): void => {
    this.scheduled = false;
    this.flush();
  };

  constructor(
    private readonly maxSize: number,
    private readonly send: (batch: T[]) => void,
  ) {}

  add(item: T): void {
    this.queue.push(item);
    if (this.queue.length >= this.maxSize) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flushScheduled);
    }
  }

  flush(): void {
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    this.send(batch);
  }
}
