import { randomUUID } from 'node:crypto';
import type { RateLimiterFactory } from '../../limiter/rate-limiter.factory';

/** What a check reads of a decision: the same fields for every algorithm. */
interface Answer {
  allowed: boolean;
  remaining: number;
  resetMs: number;
  retryAfterMs: number;
}

/** One limit of {@link LIMIT} on one key, whatever its algorithm, through the public limiters. */
interface SubjectLimiter {
  decide(permits?: number): Promise<Answer>;
  /** What a request could take now, taking nothing (a peek, a quota's usage). */
  remaining(): Promise<number>;
  /** Gives permits back: a refund; absent for the concurrency limit and the quota. */
  refund?(permits: number): Promise<void>;
  /** Forgets the key's state and its block; absent for the quota. */
  reset?(): Promise<void>;
  /** Denies the key for `seconds` whatever its state; absent for the quota. */
  block?(seconds: number): Promise<void>;
}

/** One algorithm, as a check asks for it. */
export interface Subject {
  /** Its name, as its decorator's in camel case. */
  name: string;
  /** A limit of {@link LIMIT} whose state lasts far longer than any check. */
  long(factory: RateLimiterFactory, key: string): SubjectLimiter;
  /**
   * The same limit, recovered in full `ms` after its last decision (a window, a lease, a
   * refill), at the most `recoverMs(ms)`; absent for the calendar quota.
   */
  short?(factory: RateLimiterFactory, key: string, ms: number): SubjectLimiter;
  recoverMs?(ms: number): number;
  /** The operations on its key its limiter has. */
  operations: readonly Operation[];
}

type Operation = 'refund' | 'reset' | 'block';
const ALL: readonly Operation[] = ['refund', 'reset', 'block'];

/** Every subject's limit: small, so exact counts are cheap to reach. */
export const LIMIT = 5;
/** A rate whose refill a check never sees: one permit per 100 s. */
const SLOW_RATE = 0.01;
/** A window no check outlasts: an hour, or a day for the approximate window's aligned ones. */
const HOUR = 3600;

type PermitsLimiterLike = {
  decide(permits?: number): Promise<Answer>;
  peek(): Promise<{ remaining: number }>;
  refund(permits?: number): Promise<void>;
  reset(): Promise<void>;
  block(seconds: number): Promise<void>;
};

/** A limiter with peek, refund, reset and block: all but the concurrency limit and the quota. */
function withState(limiter: PermitsLimiterLike): SubjectLimiter {
  return {
    decide: (permits = 1) => limiter.decide(permits),
    remaining: async () => (await limiter.peek()).remaining,
    refund: (permits) => limiter.refund(permits),
    reset: () => limiter.reset(),
    block: (seconds) => limiter.block(seconds),
  };
}

const concurrency = (factory: RateLimiterFactory, key: string, lease?: number): SubjectLimiter => {
  const limiter = factory.concurrencyLimiter({ key, max: LIMIT, lease });
  return {
    decide: (permits = 1) => limiter.decide(randomUUID(), permits),
    remaining: async () => (await limiter.peek()).remaining,
    reset: () => limiter.reset(),
    block: (seconds) => limiter.block(seconds),
  };
};

export const SUBJECTS: readonly Subject[] = [
  {
    name: 'rateLimit',
    long: (factory, key) =>
      withState(factory.rateLimiter({ key, rate: SLOW_RATE, capacity: LIMIT })),
    short: (factory, key, ms) =>
      withState(factory.rateLimiter({ key, rate: (LIMIT * 1000) / ms, capacity: LIMIT })),
    recoverMs: (ms) => ms,
    operations: ALL,
  },
  {
    name: 'countLimit',
    long: (factory, key) => withState(factory.countLimiter({ key, limit: LIMIT, period: HOUR })),
    short: (factory, key, ms) =>
      withState(factory.countLimiter({ key, limit: LIMIT, period: ms / 1000 })),
    recoverMs: (ms) => ms,
    operations: ALL,
  },
  {
    name: 'slidingWindowLimit',
    long: (factory, key) =>
      withState(factory.slidingWindowLimiter({ key, limit: LIMIT, window: HOUR })),
    short: (factory, key, ms) =>
      withState(factory.slidingWindowLimiter({ key, limit: LIMIT, window: ms / 1000 })),
    recoverMs: (ms) => ms,
    operations: ALL,
  },
  {
    name: 'approximateSlidingWindowLimit',
    long: (factory, key) =>
      withState(
        factory.slidingWindowLimiter({ key, limit: LIMIT, window: 24 * HOUR, approximate: true }),
      ),
    short: (factory, key, ms) =>
      withState(
        factory.slidingWindowLimiter({ key, limit: LIMIT, window: ms / 1000, approximate: true }),
      ),
    // A count weighs until the window after its own has passed.
    recoverMs: (ms) => 2 * ms,
    operations: ALL,
  },
  {
    name: 'leakyBucketLimit',
    long: (factory, key) =>
      withState(factory.leakyBucketLimiter({ key, capacity: LIMIT, rate: SLOW_RATE })),
    short: (factory, key, ms) =>
      withState(factory.leakyBucketLimiter({ key, capacity: LIMIT, rate: (LIMIT * 1000) / ms })),
    recoverMs: (ms) => ms,
    operations: ALL,
  },
  {
    name: 'quotaLimit',
    long: (factory, key) => {
      const quota = factory.quota({ key, limit: LIMIT, cycle: 'year', timeZone: 'UTC' });
      return {
        decide: (permits = 1) => quota.consume(permits),
        remaining: async () => (await quota.usage()).remaining,
      };
    },
    operations: [],
  },
  {
    name: 'concurrencyLimit',
    long: (factory, key) => concurrency(factory, key),
    short: (factory, key, ms) => concurrency(factory, key, ms / 1000),
    recoverMs: (ms) => ms,
    operations: ['reset', 'block'],
  },
];
