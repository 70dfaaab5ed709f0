import { fixedWindow } from '../algorithms/fixed-window/fixed-window.algorithm';
import { fixedWindowParams } from '../algorithms/fixed-window/fixed-window.model';
import { LimiterAlgorithm } from '../algorithms/limiter-algorithm';
import { tokenBucket } from '../algorithms/token-bucket/token-bucket.algorithm';
import {
  TOKEN_BUCKET_DEFAULTS,
  tokenBucketParams,
  tokenBucketRefund,
  tokenBucketRequest,
} from '../algorithms/token-bucket/token-bucket.model';
import { randomUUID } from 'node:crypto';
import { concurrency } from '../algorithms/concurrency/concurrency.algorithm';
import {
  ConcurrencyOptions,
  ConcurrencyRequest,
  concurrencyParams,
} from '../algorithms/concurrency/concurrency.model';
import { leakyBucket } from '../algorithms/leaky-bucket/leaky-bucket.algorithm';
import {
  LeakyBucketOptions,
  leakyBucketParams,
} from '../algorithms/leaky-bucket/leaky-bucket.model';
import { slidingWindow } from '../algorithms/sliding-window/sliding-window.algorithm';
import {
  SlidingWindowOptions,
  slidingWindowParams,
} from '../algorithms/sliding-window/sliding-window.model';
import { LimitKindName } from '../decorators/limit-definition';

/** A limit's algorithm with its parameters fixed, as the guard runs it. */
export interface CompiledAlgorithm {
  algorithm: LimiterAlgorithm<unknown, unknown, unknown>;
  params: unknown;
  /** The request argument of one decision (a new id where the algorithm needs one). */
  newRequest(): unknown;
  /** The policy window in seconds, for the IETF `RateLimit-Policy` header. */
  windowSeconds?: number;
  /** Whether the slot is held until the response ends (concurrency). */
  holdsSlot?: boolean;
  /** The request argument that gives back a reservation whose caller left while it waited. */
  refundRequest?(acquire: unknown): unknown;
  /** The request argument that gives back the slot `acquire` took. */
  releaseRequest?(acquire: unknown): unknown;
  /**
   * The `Retry-After` of a denial, when the decision's own says little: a concurrency slot
   * frees whenever any request ends, long before its lease would.
   */
  retryAfterHintMs?: number;
}

/** DESIGN §3: a concurrency denial's Retry-After is a short fixed hint, not the lease. */
export const CONCURRENCY_RETRY_AFTER_MS = 1000;

/**
 * How each decorator kind turns its options into an algorithm run. Decorator options arrive
 * untyped (plain JavaScript callers included); the `*Params` functions validate every field,
 * which is why the casts below are safe.
 */
export interface LimitKind {
  /** Option names the kind accepts besides the key options, to catch typos at start-up. */
  optionNames: readonly string[];
  compile(options: Record<string, unknown>, where: string): CompiledAlgorithm;
}

const asAlgorithm = <P, R, S>(algorithm: LimiterAlgorithm<P, R, S>) =>
  algorithm as unknown as LimiterAlgorithm<unknown, unknown, unknown>;

export const LIMIT_KINDS: Record<LimitKindName, LimitKind> = {
  tokenBucket: {
    optionNames: ['rate', 'burst', 'permits', 'timeout', 'expire', 'initialPermits'],
    compile(options, where) {
      const params = tokenBucketParams(options, where);
      const request = tokenBucketRequest(
        params,
        (options.permits as number) ?? 1,
        (options.timeout as number) ?? 0,
        where,
      );
      return {
        algorithm: asAlgorithm(tokenBucket),
        params,
        newRequest: () => request,
        refundRequest: () => tokenBucketRefund(request),
        windowSeconds: (options.burst as number | undefined) ?? TOKEN_BUCKET_DEFAULTS.burst,
      };
    },
  },
  fixedWindow: {
    optionNames: ['limit', 'period'],
    compile(options, where) {
      const params = fixedWindowParams(options, where);
      return {
        algorithm: asAlgorithm(fixedWindow),
        params,
        newRequest: () => undefined,
        windowSeconds: params.periodMs / 1000,
      };
    },
  },
  slidingWindow: {
    optionNames: ['limit', 'window'],
    compile(options, where) {
      const params = slidingWindowParams(options as unknown as SlidingWindowOptions, where);
      return {
        algorithm: asAlgorithm(slidingWindow),
        params,
        // Members must be unique across servers even within one microsecond.
        newRequest: () => ({ id: randomUUID() }),
        windowSeconds: params.windowMicros / 1_000_000,
      };
    },
  },
  concurrency: {
    optionNames: ['max', 'lease'],
    compile(options, where) {
      const params = concurrencyParams(options as unknown as ConcurrencyOptions, where);
      return {
        algorithm: asAlgorithm(concurrency),
        params,
        newRequest: (): ConcurrencyRequest => ({ op: 'acquire', id: randomUUID() }),
        holdsSlot: true,
        retryAfterHintMs: CONCURRENCY_RETRY_AFTER_MS,
        releaseRequest: (acquire) => ({ op: 'release', id: (acquire as ConcurrencyRequest).id }),
      };
    },
  },
  leakyBucket: {
    optionNames: ['capacity', 'rate'],
    compile(options, where) {
      const params = leakyBucketParams(options as unknown as LeakyBucketOptions, where);
      return {
        algorithm: asAlgorithm(leakyBucket),
        params,
        newRequest: () => undefined,
        windowSeconds: (params.capacity * params.intervalMicros) / 1_000_000,
      };
    },
  },
};
