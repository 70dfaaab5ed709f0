import { Logger } from '@nestjs/common';
import type { Cluster, Redis } from 'ioredis';
import { describeClient } from './endpoint-description';

/** While Redis stays unreachable, the log says so again this often (never per request). */
const UNREACHABLE_LOG_INTERVAL_MS = 30_000;

/**
 * Names an unreachable Redis in the log: where the client connects (host:port, the Sentinels,
 * a Cluster's seeds) and why it cannot (refused, timed out, a name that does not resolve),
 * when the connection first fails, again every {@link UNREACHABLE_LOG_INTERVAL_MS} while it
 * lasts, and once when it is back. Error replies (an ACL, a wrong type) are not outages.
 */
export class ConnectionWatch {
  /** The last connection error's message while unreachable; undefined while connected. */
  cause?: string;
  private sinceMs = 0;
  private repeat?: NodeJS.Timeout;
  private started = false;
  private readonly where: string;

  private readonly onError = (error: Error): void => {
    if (error?.name === 'ReplyError') return;
    this.cause = error.message.split('\n')[0];
    if (this.repeat) return;
    this.sinceMs = this.now();
    this.logger.warn(this.outage!);
    this.repeat = setInterval(() => {
      const seconds = Math.round((this.now() - this.sinceMs) / 1000);
      this.logger.warn(
        `Redis at ${this.where} is still unreachable after ${seconds} s (${this.cause})`,
      );
    }, this.intervalMs);
    this.repeat.unref();
  };

  /** A connection lost before any error says why (Redis closed it, or the app did). */
  private readonly onClose = (): void => {
    this.cause ??= 'the connection was closed';
  };

  private readonly onReady = (): void => {
    this.cause = undefined;
    if (!this.repeat) return;
    this.stopRepeating();
    const seconds = Math.round((this.now() - this.sinceMs) / 1000);
    this.logger.log(`Redis at ${this.where} is back after ${seconds} s unreachable`);
  };

  constructor(
    private readonly client: Redis | Cluster,
    private readonly logger = new Logger('RateLimiter'),
    private readonly intervalMs = UNREACHABLE_LOG_INTERVAL_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.where = describeClient(client);
  }

  /** Listens from now on (before the store's first command opens the connection). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.client.on('error', this.onError);
    this.client.on('ready', this.onReady);
    this.client.on('close', this.onClose);
  }

  stop(): void {
    this.stopRepeating();
    this.client.removeListener('error', this.onError);
    this.client.removeListener('ready', this.onReady);
    this.client.removeListener('close', this.onClose);
  }

  /** The outage as a sentence, while unreachable: where, and why. */
  get outage(): string | undefined {
    return this.cause && `Redis at ${this.where} is unreachable (${this.cause})`;
  }

  private stopRepeating(): void {
    clearInterval(this.repeat);
    this.repeat = undefined;
  }
}
