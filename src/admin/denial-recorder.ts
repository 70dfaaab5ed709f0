import { Logger } from '@nestjs/common';
import { CompiledLimit } from '../compile/compiled-limit';
import { RateLimitEvent } from '../contracts/rate-limit-event';
import { DenialLog, memberOf, minuteOf } from './denial-log';

/** How long denials gather in memory before one write: a flood costs Redis a few calls a second. */
const FLUSH_AFTER_MS = 200;

/**
 * Counts the guard's denials and writes them to the log in batches, so a flood from one
 * key (which the denial cache keeps off Redis) does not cost Redis one write per request.
 */
export class DenialRecorder {
  private counts = new Map<string, number>();
  private untilMs = new Map<string, number>();
  private minute = 0;
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private readonly logger = new Logger('RateLimiterAdmin');

  constructor(private readonly log: DenialLog) {}

  /** A guard decision listener (DecisionListeners). */
  readonly listen = (event: RateLimitEvent, limit: CompiledLimit): void => {
    if (event.outcome !== 'denied' || event.key === undefined || !event.decision) return;
    const now = Date.now();
    if (minuteOf(now) !== this.minute) this.flush();
    this.minute = minuteOf(now);
    const member = memberOf({ limit: limit.where, name: limit.name }, event.key);
    this.counts.set(member, (this.counts.get(member) ?? 0) + 1);
    this.untilMs.set(member, now + event.decision.retryAfterMs);
    this.timer ??= setTimeout(() => this.flush(), FLUSH_AFTER_MS).unref();
  };

  /** Writes what was gathered; resolves when every write so far has landed. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.counts.size > 0) {
      const batch = { minute: this.minute, counts: this.counts, untilMs: this.untilMs };
      this.counts = new Map();
      this.untilMs = new Map();
      this.writing = this.writing
        .then(() => this.log.add(batch))
        .catch((error: unknown) =>
          this.logger.warn(`Could not record denials: ${(error as Error)?.message ?? error}`),
        );
    }
    return this.writing;
  }
}
