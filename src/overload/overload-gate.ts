import { AdaptiveLimit, WindowVerdict } from './adaptive-limit.model';
import { OverloadPriority, OverloadSettings } from './overload.options';

/** A point of the limit's recent history: when (epoch ms) and what it was. */
export interface LimitPoint {
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
  /** Hears every judged window (the metrics); none by default. */
  onWindow?: (verdict: WindowVerdict) => void;

  constructor(
    readonly name: string,
    private readonly settings: OverloadSettings,
    private readonly now: () => number = () => performance.now(),
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

  /** A ticket when the class may run now, undefined when it is refused (counted). */
  admit(priority: OverloadPriority): OverloadTicket | undefined {
    if (this.inFlightCount >= this.ceiling(priority)) {
      this.refusedCount[priority]++;
      return undefined;
    }
    this.inFlightCount++;
    const startedAtMs = this.now();
    let open = true;
    const end = (learn: boolean) => {
      if (!open) return;
      open = false;
      const inFlight = this.inFlightCount--;
      if (learn) this.learn(startedAtMs, inFlight);
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
