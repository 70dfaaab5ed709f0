import { Decision } from '../../../contracts/decision';
import { withPermits } from '../../../algorithms/state-ops/lease-option';
import type { RefundRequest } from '../../../algorithms/state-ops/state-ops.model';

/** Told when a call a request waits for leaves for Redis; false once its caller gave up. */
export type OnSent = (sentAtMs: number) => boolean | number | void;

/** A window the permits were taken in: by its end on Redis's clock, else by the time left. */
export type LeaseWindow = Pick<RefundRequest, 'resetLeftMicros' | 'windowEndsAtMicros'>;

/** How a lease reaches Redis: the limit's acquire, and its refund of what was not used. */
export interface LeaseRedis {
  acquire(request: unknown, deadlineMs: number, onSent?: OnSent): Promise<Decision>;
  /** `window`: the window the permits were taken in, for a limit of windows. */
  giveBack(permits: number, window: LeaseWindow | undefined): Promise<unknown>;
}

/**
 * One request of a lease for more permits: `count` acquires of one permit, sent together
 * (the engine decides them as one entry, engine/coalescing.ts: each allowed while the key has
 * a permit left). It carries a deadline of its own, `patienceMs` from the moment it leaves
 * (the requests waiting for it wait that long from then too, as entries held behind a call
 * in flight do), never the deadline of a request that may have passed already: Redis would
 * skip it as late, every time. It is given up once that deadline has passed unanswered (a
 * reply lost, Redis silent): the lease then no longer waits for it, and what it may have
 * taken stays counted, to come back with its window, or when its answer arrives after all.
 */
export class LeaseFetch {
  /** Whether the lease stopped waiting for the answer (its deadline passed). */
  givenUp = false;
  /** Settles when the fetch is answered, fails or is given up. */
  readonly settled: Promise<unknown>;
  /** The acquires' decisions, in order, or their error. */
  readonly decisions: Promise<Decision[]>;
  private timer?: NodeJS.Timeout;
  private sent = false;
  private answered = false;
  private endWait!: () => void;

  constructor(
    redis: LeaseRedis,
    request: unknown,
    count: number,
    patienceMs: number,
    /** Told once, when the fetch leaves for Redis (`performance.now()`). */
    onSent: (sentAtMs: number) => void,
    /** Told when the fetch is given up unanswered. */
    private readonly onGiveUp: () => void,
  ) {
    this.settled = new Promise<void>((resolve) => (this.endWait = resolve));
    const one = withPermits(request, 1);
    const tell = (sentAtMs: number) => {
      if (this.sent) return true;
      this.sent = true;
      onSent(sentAtMs);
      if (Number.isFinite(patienceMs)) {
        // A turn after the deadline: a reply already read by then is not given up.
        this.timer = setTimeout(() => setImmediate(() => this.giveUp()), patienceMs);
        this.timer.unref();
      }
      return true;
    };
    const deadlineMs = performance.now() + patienceMs;
    this.decisions = Promise.all(
      Array.from({ length: count }, () => redis.acquire(one, deadlineMs, tell)),
    );
    void this.decisions.then(
      () => this.answer(),
      () => this.answer(),
    );
  }

  private answer(): void {
    this.answered = true;
    clearTimeout(this.timer);
    this.endWait();
  }

  private giveUp(): void {
    if (this.givenUp || this.answered) return;
    this.givenUp = true;
    this.endWait();
    this.onGiveUp();
  }
}
