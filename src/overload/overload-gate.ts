import { AdaptiveLimit, WindowVerdict } from './adaptive-limit.model';
import { OverloadPriority, OverloadSettings } from './overload.options';

/** A point of the limit's recent history: when (epoch ms) and what it was. */
interface LimitPoint {
  atMs: number;
  limit: number;
}

/** A request admitted by the gate: end it once its work is over, or cancel it if it never ran. */
export interface OverloadTicket {
  /** The work is over: frees the slot and gives its latency to the limit. */
  done(): void;
  /** The request never ran (another limit refused it): frees the slot, learns nothing. */
  cancel(): void;
}

/** The gate's state, as the metrics and the admin page read it. */
export interface OverloadSnapshot {
  name: string;
  limit: number;
  inFlight: number;
  baselineMs?: number;
  refused: Record<OverloadPriority, number>;
  history: readonly LimitPoint[];
}

export const PRIORITIES: readonly OverloadPriority[] = ['critical', 'normal', 'sheddable'];
const HISTORY_POINTS = 120;
const HISTORY_STEP_MS = 500;

/**
 * Requests in flight in this process for one `@AdaptiveConcurrencyLimit` (or the module's
 * `overload`), against the limit the model learns. Each class has a ceiling on what is in
 * flight when it arrives: critical the whole limit; normal the limit less its `reserve`;
 * sheddable that less the reserve again. Near the limit, sheddable requests are refused
 * first, then normal ones, and critical requests find the reserve free.
 */
export class OverloadGate {
  private inFlightCount = 0;
  private readonly model: AdaptiveLimit;
  private readonly refusedCount: Record<OverloadPriority, number> = {
    critical: 0,
    normal: 0,
    sheddable: 0,
  };
  private readonly points: LimitPoint[] = [];
  /** Critical requests waiting for a slot, first come first served. */
  private readonly waiting: ((ticket: OverloadTicket) => void)[] = [];
  /** Hears every judged window (the metrics); none by default. */
  onWindow?: (verdict: WindowVerdict) => void;

  constructor(
    readonly name: string,
    private readonly settings: OverloadSettings,
    private readonly now: () => number = () => performance.now(),
    /** False on a simulated clock, where no timer runs. */
    private readonly criticalWaits = true,
  ) {
    this.model = new AdaptiveLimit(settings);
    this.record();
  }

  get limit(): number {
    return this.model.limit;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  /** The most in flight at which a request of this class is still admitted, exclusive. */
  ceiling(priority: OverloadPriority): number {
    const limit = this.model.limit;
    if (priority === 'critical') return limit;
    const normal = limit - Math.round(limit * this.settings.reserve);
    if (priority === 'normal') return normal;
    return normal - Math.round(normal * this.settings.reserve);
  }

  /**
   * A ticket when the class may run now. A critical request that finds the gate full waits
   * for a slot, up to one baseline latency (slots come free that fast at capacity), ahead
   * of every later request: a burst of critical requests larger than the reserve (those an
   * event-loop stall held back, read at once) then waits a moment instead of being refused.
   * Undefined when refused (counted).
   */
  admit(
    priority: OverloadPriority,
  ): OverloadTicket | Promise<OverloadTicket | undefined> | undefined {
    if (this.inFlightCount < this.ceiling(priority)) return this.take();
    const waitMs = this.model.baseline;
    if (
      priority !== 'critical' ||
      !this.criticalWaits ||
      waitMs === undefined ||
      this.waiting.length >= this.model.limit
    ) {
      this.refusedCount[priority]++;
      return undefined;
    }
    return new Promise((resolve) => {
      const waiter = (ticket: OverloadTicket) => {
        clearTimeout(timer);
        resolve(ticket);
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        this.refusedCount.critical++;
        resolve(undefined);
      }, Math.ceil(waitMs));
      this.waiting.push(waiter);
    });
  }

  private take(): OverloadTicket {
    this.inFlightCount++;
    const startedAtMs = this.now();
    let open = true;
    const end = (learn: boolean) => {
      if (!open) return;
      open = false;
      const inFlight = this.inFlightCount--;
      if (learn) this.learn(startedAtMs, inFlight);
      while (this.waiting.length > 0 && this.inFlightCount < this.model.limit) {
        this.waiting.shift()!(this.take());
      }
    };
    return { done: () => end(true), cancel: () => end(false) };
  }

  /** A whole-second retry time for refused clients: a round trip at least, and 1 s at least. */
  get retryAfterSeconds(): number {
    return Math.max(1, Math.ceil((this.model.baseline ?? 0) / 1000));
  }

  snapshot(): OverloadSnapshot {
    return {
      name: this.name,
      limit: this.model.limit,
      inFlight: this.inFlightCount,
      baselineMs: this.model.baseline,
      refused: { ...this.refusedCount },
      history: [...this.points],
    };
  }

  private learn(startedAtMs: number, inFlight: number): void {
    const verdict = this.model.sample(startedAtMs, this.now(), inFlight);
    if (verdict === undefined) return;
    this.record();
    this.onWindow?.(verdict);
  }

  /** One point per HISTORY_STEP_MS at most: the last limit of that step. */
  private record(): void {
    const point = { atMs: Date.now(), limit: this.model.limit };
    const last = this.points[this.points.length - 1];
    if (last && point.atMs - last.atMs < HISTORY_STEP_MS) last.limit = point.limit;
    else this.points.push(point);
    if (this.points.length > HISTORY_POINTS) this.points.shift();
  }
}
