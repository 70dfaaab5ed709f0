/** How long one window of offset samples lasts: old samples go stale as the clocks drift. */
const WINDOW_MS = 10_000;

/**
 * Translates a local deadline (`performance.now()` ms) into Redis's clock (µs of `TIME`), so
 * the engine script can skip the entries whose callers stopped waiting (Redis frozen, then
 * resumed). Each reply carries Redis's time `r`, read between the send at local `t0` and
 * the reply at `t1`; the offset Redis − local is therefore at least `r − t1`. The largest
 * such lower bound of the last window or two is used: never later than the true deadline,
 * so an entry nobody waits for never runs; earlier by at most the fastest round trip seen.
 */
export class RedisClock {
  private current = -Infinity;
  private previous = -Infinity;
  private windowEndsAtMs = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Records a reply: Redis's time in µs, read before the local time `receivedAtMs`. */
  sample(redisMicros: number, receivedAtMs: number): void {
    if (!Number.isFinite(redisMicros)) return;
    if (receivedAtMs >= this.windowEndsAtMs) {
      this.previous = this.current;
      this.current = -Infinity;
      this.windowEndsAtMs = receivedAtMs + WINDOW_MS;
    }
    this.current = Math.max(this.current, redisMicros - receivedAtMs * 1000);
  }

  /** The local deadline in Redis µs, as the engine's ARGV; '' until a reply has been seen. */
  deadline(localMs: number): string {
    const offset = Math.max(this.current, this.previous);
    if (offset === -Infinity || !Number.isFinite(localMs)) return '';
    return String(Math.floor(localMs * 1000 + offset));
  }

  /** The local time now, in the same clock as the deadlines. */
  localMs(): number {
    return this.now();
  }
}
