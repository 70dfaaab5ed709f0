import { lessonOf, UpstreamLesson } from './http-answer';
import { SharedLearning } from './shared-learning';
import { LearnedBudget } from './upstream-learning.model';

/** How soon a server reports a new ceiling to the shared record (a bare 429: at once). */
const REPORT_EVERY_MS = 200;
/** How often a server with calls reports otherwise, and reads the budget back: the climb
 * after a cut counts the time between reports, so it is as fast at this pace. */
const STEADY_REPORT_EVERY_MS = 1000;
/** A ceiling the headers state is taken this much lower: running just under it, a token
 * bucket upstream refills faster than it is spent, so phase jitter costs no 429s. */
const CEILING_MARGIN = 0.98;
/** At most one cap of the bucket (a peek and a charge) per this long. */
const CAP_EVERY_MS = 100;

/** What the learner tells its upstream. */
interface LearnerHost {
  readonly configuredRate: number;
  /** The upstream asked for a pause of `ms`. */
  pause(ms: number): void;
  /** What the answers say is left now. */
  capAt(left: number): Promise<void>;
  /** The fleet's budget, read back. */
  budget(budget: LearnedBudget): void;
  /** Whether this server has calls, or anything to report. */
  active(): boolean;
  /** A lesson was taken from an answer (for the metrics). */
  learned?(lesson: UpstreamLesson): void;
}

/**
 * Reads the answers of one upstream's calls on this server and reports them to the fleet's
 * shared record (upstream-learning.model.ts): successes and bare 429s as counts, the latest
 * ceiling; a pause goes to the book at once.
 */
export class UpstreamLearner {
  private successes = 0;
  private throttles = 0;
  private ceiling?: number;
  /** The last ceiling reported: one said again is no news. */
  private reportedCeiling?: number;
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private reporting = false;
  private lastCapMs = -Infinity;
  private closed = false;

  constructor(
    private readonly key: string,
    private readonly shared: SharedLearning,
    private readonly host: LearnerHost,
    private readonly learn: boolean,
  ) {}

  /** The result of a call, or its error. */
  read(value: unknown): void {
    if (!this.learn) return;
    const lesson = lessonOf(value);
    if (!lesson) return;
    if (lesson.pauseMs !== undefined && lesson.pauseMs > 0) this.host.pause(lesson.pauseMs);
    if (lesson.ceiling !== undefined) {
      this.ceiling = lesson.ceiling * CEILING_MARGIN;
    }
    if (lesson.throttled) this.throttles++;
    else if (lesson.status < 400) this.successes++;
    if (lesson.remaining !== undefined && lesson.status < 400) {
      const now = performance.now();
      if (now - this.lastCapMs >= CAP_EVERY_MS) {
        this.lastCapMs = now;
        this.host.capAt(lesson.remaining).catch(() => undefined);
      }
    }
    if (lesson.pauseMs !== undefined || lesson.ceiling !== undefined || lesson.throttled) {
      this.host.learned?.(lesson);
    }
    this.wake(this.nextReportMs());
  }

  /** Reports within `inMs`, if no report is due sooner. */
  wake(inMs = STEADY_REPORT_EVERY_MS): void {
    // A report under way schedules the next when it ends.
    if (this.closed || this.reporting) return;
    const at = performance.now() + inMs;
    if (this.timer && this.timerAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => void this.report(), inMs);
  }

  private async report(): Promise<void> {
    [this.timer, this.timerAt] = [undefined, Infinity];
    if (this.reporting || this.closed) return;
    this.reporting = true;
    const { successes, throttles, ceiling } = this;
    this.successes = this.throttles = 0;
    this.ceiling = undefined;
    try {
      const budget = await this.shared.report(this.key, {
        configuredRate: this.host.configuredRate,
        successes,
        throttles,
        ceiling,
      });
      if (ceiling !== undefined) this.reportedCeiling = ceiling;
      if (!this.closed) this.host.budget(budget);
    } catch {
      // The record could not be reached: the last budget stands, and the counts are kept.
      this.successes += successes;
      this.throttles += throttles;
      this.ceiling ??= ceiling;
    } finally {
      this.reporting = false;
    }
    if (this.host.active() || this.successes + this.throttles > 0) this.wake(this.nextReportMs());
  }

  /** A bare 429 at once (every server slows down together), a new ceiling soon, else seldom. */
  private nextReportMs(): number {
    if (this.throttles > 0) return 0;
    const news = this.ceiling !== undefined && this.ceiling !== this.reportedCeiling;
    return news ? REPORT_EVERY_MS : STEADY_REPORT_EVERY_MS;
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }
}
