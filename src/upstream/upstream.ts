import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { UpstreamBucket } from './upstream-bucket';
import { UpstreamLearner } from './upstream-learner';
import { LearnedBudget } from './upstream-learning.model';
import { callSettings, UpstreamCallOptions, UpstreamSettings } from './upstream.options';
import { UpstreamEvents } from './upstream-events';
import { SlotScheduler } from './upstream-scheduler';

/** What the admin page and the metrics read of an upstream. */
export interface UpstreamStatus {
  name: string;
  rate: number;
  learnedRate: number;
  pausedForMs: number;
  waiting: number;
}

/**
 * An API the app calls, with the budget every server shares for it. `call` waits for a slot,
 * runs the function and hands back its result or its error; the answers steer the budget
 * (upstream-learner.ts). Starts are booked in one book in Redis: a token bucket and a fair
 * queue beside it (upstream-slots.model.ts), first in first out within a tenant.
 *
 * @publicApi
 */
export class Upstream {
  private readonly scheduler: SlotScheduler;
  private learning?: UpstreamLearner;

  /** @internal */
  constructor(
    readonly settings: UpstreamSettings,
    private readonly bucket: UpstreamBucket,
    private readonly events: UpstreamEvents = {},
  ) {
    this.scheduler = new SlotScheduler(settings, bucket, events);
  }

  /** @internal What reads the answers; it reports while calls wait. */
  set learner(learner: UpstreamLearner) {
    this.learning = learner;
    this.scheduler.onQueued = () => learner.wake();
  }

  get learner(): UpstreamLearner | undefined {
    return this.learning;
  }

  get name(): string {
    return this.settings.name;
  }

  /** Waits for a slot, runs `fn`, and returns its result (or rethrows its error). */
  async call<T>(fn: () => T | PromiseLike<T>, options: UpstreamCallOptions = {}): Promise<T> {
    const { tenant, weight, cost } = callSettings(this.name, options);
    if (cost > this.settings.capacity) {
      const expected = `at most the upstream's capacity (${this.settings.capacity})`;
      throw new LimiterConfigError(
        limiterMessages.invalidOption(`upstream '${this.name}' call`, 'cost', cost, expected),
      );
    }
    const { signal } = options;
    if (signal?.aborted) throw signal.reason;
    const queuedAt = performance.now();
    await this.scheduler.slot(tenant, weight, cost, signal, queuedAt);
    this.events.started?.(this.name, performance.now() - queuedAt);
    let result: T;
    try {
      result = await fn();
    } catch (error) {
      this.learner?.read(error);
      throw error;
    }
    this.learner?.read(result);
    return result;
  }

  /** `call(() => fetch(input, init), options)`; the call's `signal` reaches fetch too. */
  fetch(input: string | URL | Request, init?: RequestInit, options: UpstreamCallOptions = {}) {
    const signal = init?.signal ?? options.signal;
    return this.call(() => fetch(input, signal ? { ...init, signal } : init), options);
  }

  status(): UpstreamStatus {
    return {
      name: this.name,
      rate: this.settings.rate,
      learnedRate: this.bucket.currentRate,
      pausedForMs: Math.max(0, this.scheduler.pauseUntil - performance.now()),
      waiting: this.scheduler.waiting(),
    };
  }

  /** @internal The upstream asked for a pause: no call of any server starts before its end. */
  pauseFor(ms: number): void {
    if (!this.scheduler.holdUntil(performance.now() + ms)) return;
    this.events.paused?.(this.name, ms);
    this.bucket.pause(ms).catch(() => undefined);
  }

  /** @internal The fleet's budget: the rate the bucket spends at. */
  applyBudget(budget: LearnedBudget): void {
    this.bucket.setRate(budget.rate);
    this.events.learnedRate?.(this.name, budget.rate);
  }

  /** @internal Rejects every waiting call and stops the timers (the app shuts down). */
  close(): void {
    this.learning?.close();
    this.scheduler.close();
  }
}
