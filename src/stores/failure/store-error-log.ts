import { Logger } from '@nestjs/common';
import { StoreErrorPolicy } from '../../contracts/store-error-policy';
import { StoreReplyError } from '../store-reply.error';

/** An error class (an outage, or one error code) is logged at most once in this many ms. */
export const ERROR_LOG_INTERVAL_MS = 60_000;

/** Redis error codes that mean "not now" rather than "never": treated as an outage. */
const TRANSIENT_CODES = new Set([
  'LOADING',
  'BUSY',
  'MASTERDOWN',
  'TRYAGAIN',
  'CLUSTERDOWN',
  'READONLY',
]);

/**
 * The Redis error code of an error reply (`NOPERM`, `WRONGTYPE`, `OOM`...) found in the
 * error or its causes, when it is one that waiting will not fix; undefined for an outage
 * (lost connection, timeout) or a transient reply such as `LOADING`.
 */
export function permanentErrorCode(error: unknown): string | undefined {
  for (let e = error; e instanceof Error; e = e.cause) {
    if (e.name === 'ReplyError' || e instanceof StoreReplyError) {
      const code = /^[A-Z]+/.exec(e.message)?.[0];
      return code && !TRANSIENT_CODES.has(code) ? code : undefined;
    }
  }
  return undefined;
}

const ACTIONS: Record<StoreErrorPolicy, string> = {
  allow: 'allowed without limits',
  deny: 'denied with 503',
  fallback: 'limited in memory, per process',
};

/**
 * What the failure policy tells the logs. An outage: one warning when it starts and one
 * line when a real answer of the store ends it; outages that start within a minute of the
 * last one reported are counted, not logged, so a flapping store does not flood the logs.
 * A permanent error (a Redis error reply): an error, at most once a minute per error code,
 * with how many were not logged.
 */
export class StoreErrorLog {
  private down = false;
  private downSinceMs = 0;
  /** Whether the current outage was reported (its end is logged only then). */
  private reported = false;
  private lastOutageReportMs = -Infinity;
  private unreportedOutages = 0;
  private readonly lastLogged = new Map<string, { atMs: number; unlogged: number }>();

  constructor(
    private readonly logger: Logger,
    private readonly policy: StoreErrorPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  failed(error: Error): void {
    const code = permanentErrorCode(error);
    if (code !== undefined) return this.permanent(code, error);
    if (this.down) return;
    this.down = true;
    this.downSinceMs = this.now();
    this.reported = this.downSinceMs - this.lastOutageReportMs >= ERROR_LOG_INTERVAL_MS;
    if (!this.reported) {
      this.unreportedOutages++;
      return;
    }
    const unreported = this.unreportedOutages
      ? ` (${this.unreportedOutages} more outages since the last report)`
      : '';
    this.lastOutageReportMs = this.downSinceMs;
    this.unreportedOutages = 0;
    this.logger.warn(
      `Rate-limit store unavailable (${error.message}): requests are ${ACTIONS[this.policy]} until it is back${unreported}`,
    );
  }

  /**
   * A decision succeeded. The outage is over only if the store's backend really answered
   * since it began (`lastAnswerAtMs`; undefined when every answer is real): a denial
   * remembered locally proves nothing.
   */
  succeeded(lastAnswerAtMs: number | undefined): void {
    if (!this.down) return;
    if (lastAnswerAtMs !== undefined && lastAnswerAtMs < this.downSinceMs) return;
    this.down = false;
    if (this.reported) this.logger.log('Rate-limit store is back: limits are shared again');
  }

  /** The start-up check failed: an ACL user that cannot run the scripts is an error. */
  checkFailed(error: unknown): void {
    const code = permanentErrorCode(error);
    if (code === undefined) return; // not reachable yet: the first decisions will tell
    const message = (error as Error).message;
    const command = /run the '([^']+)' command/.exec(message)?.[1];
    const missing = command ? ` The Redis user lacks the '${command}' permission.` : '';
    this.logger.error(
      `Rate-limit store cannot run its scripts (${message}).${missing} ` +
        `Requests are ${ACTIONS[this.policy]} until this is fixed`,
    );
  }

  private permanent(code: string, error: Error): void {
    const nowMs = this.now();
    const last = this.lastLogged.get(code);
    if (last && nowMs - last.atMs < ERROR_LOG_INTERVAL_MS) {
      last.unlogged++;
      return;
    }
    const unlogged = last?.unlogged ? ` (${last.unlogged} more since the last report)` : '';
    this.lastLogged.set(code, { atMs: nowMs, unlogged: 0 });
    this.logger.error(
      `Rate-limit store answered ${code}, which waiting will not fix (${error.message}): ` +
        `those requests are ${ACTIONS[this.policy]}${unlogged}`,
    );
  }
}
