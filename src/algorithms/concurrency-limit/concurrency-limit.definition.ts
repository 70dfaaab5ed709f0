import { randomUUID } from 'node:crypto';
import { Decision } from '../../contracts/decision';
import { Seconds } from '../duration';
import { anyAlgorithm, DecisionSource, LimitKind } from '../limit-kind';
import { exactString, LimiterAlgorithm } from '../limiter-algorithm';
import { permitsArgv, staticPermits } from '../permits';
import { ttlWithBlock } from '../state-ops/blockable';
import { peekOf, resetOf } from '../state-ops/state-ops';
import { LimitState, limitStateOf, manualBlockMicros } from '../state-ops/state-ops.model';
import { concurrencyLimitStep } from './concurrency-limit.memory';
import {
  ConcurrencyLimiterOptions,
  ConcurrencyLimitParams,
  concurrencyLimitParams,
  ConcurrencyLimitRequest,
  concurrencyLimitRequest,
  ConcurrencyLimitState,
} from './concurrency-limit.model';

/** The concurrency limit (`@ConcurrencyLimit`): Lua for Redis, {@link concurrencyLimitStep} in memory. */
export const concurrencyLimit: LimiterAlgorithm<
  ConcurrencyLimitParams,
  ConcurrencyLimitRequest,
  ConcurrencyLimitState
> = {
  commandName: 'limiterConcurrencyLimit',
  stableName: 'concurrency',
  paramsArgv: (params) => [String(params.max), exactString(params.leaseMicros)],
  requestArgv: (request) => [request.op, request.id, ...permitsArgv(request)],
  step: concurrencyLimitStep,
  limit: (params) => params.max,
  isDecision: (request) => request.op === 'acquire',
};

/**
 * Blocks the key for the request's µs from now: acquires are denied until then, releases
 * still run (concurrency-limit.lua). The block is the zset member '#block', as on the sliding log.
 */
const block: LimiterAlgorithm<ConcurrencyLimitParams, number, ConcurrencyLimitState> = {
  commandName: 'limiterConcurrencyLimitBlock',
  stateOf: concurrencyLimit,
  paramsArgv: () => [],
  requestArgv: (micros) => [String(micros)],
  step: (state, now, _params, micros, expiresAt) => {
    const until = now + micros;
    return {
      state: { leases: state?.leases ?? new Map(), blockedUntilMicros: until },
      ttlMs: ttlWithBlock(expiresAt, until, now),
      reply: [1, 0, 0, 0, 0],
    };
  },
  limit: concurrencyLimit.limit,
};

/**
 * Peek, reset and block on a concurrency key (DESIGN §9). No refund: a slot is released.
 * A block denies acquires only: a release is never refused.
 */
export const concurrencyLimitOps = {
  peek: peekOf(concurrencyLimit, 'zset'),
  reset: resetOf(concurrencyLimit),
  block,
  /** A peek takes 0 slots: the leases as they stand. */
  peekRequest: concurrencyLimitRequest('acquire', 'peek', undefined, 0),
};

/** DESIGN §3: a concurrency denial's Retry-After is a short fixed hint, not the lease. */
export const CONCURRENCY_RETRY_AFTER_MS = 1000;

/** `@ConcurrencyLimit` and `factory.concurrencyLimiter`. */
export const concurrencyLimitKind: LimitKind<ConcurrencyLimiterOptions, ConcurrencyLimiter> = {
  name: 'concurrencyLimit',
  stableName: concurrencyLimit.stableName!,
  decorator: '@ConcurrencyLimit',
  defaultPrefix: 'concurrency:',
  optionNames: ['max', 'lease', 'permits'],
  factoryOptionNames: ['key', 'prefix', 'max', 'lease'],
  algorithm: concurrencyLimit,
  // Built into the engine with the acquire; the guard never refunds a slot (it releases).
  ops: concurrencyLimitOps,
  compile(options, where) {
    const params = concurrencyLimitParams(options as unknown as ConcurrencyLimiterOptions, where);
    const cost = staticPermits(options.permits, params.max, where);
    return {
      algorithm: anyAlgorithm(concurrencyLimit),
      params,
      newRequest: (permits = cost): ConcurrencyLimitRequest => ({
        op: 'acquire',
        id: randomUUID(),
        permits,
      }),
      holdsSlot: true,
      // A denial that outlasts any lease comes from a block(): its end is the real answer;
      // one that can never pass (more slots than max) has none.
      retryAfterMs: (decision) =>
        decision.retryAfterMs < 0 || decision.retryAfterMs > params.leaseMicros / 1000
          ? decision.retryAfterMs
          : CONCURRENCY_RETRY_AFTER_MS,
      releaseRequest: (acquire) => {
        const { id, permits } = acquire as ConcurrencyLimitRequest;
        return { op: 'release', id, permits };
      },
    };
  },
  createLimiter: (source, key, options, where) =>
    new ConcurrencyLimiter(source, key, concurrencyLimitParams(options, where)),
};

/**
 * The slots held by one in-flight request. Give them back with {@link release} when the
 * work is done; slots never released (a crashed server) are freed when their lease ends.
 *
 * @publicApi
 */
export interface ConcurrencySlot {
  /** The request's id in the store. */
  readonly id: string;
  /** The decision that granted the slot. */
  readonly decision: Decision;
  /** Gives the slots back. Idempotent: a second call waits for the first and sends nothing. */
  release(): Promise<void>;
}

/**
 * A concurrency limit on one key: at most `max` requests in flight at once across every
 * process that uses the same key and options, each slot held at most `lease` seconds.
 * The math: concurrency-limit.model.ts.
 *
 * @example
 * ```ts
 * const slot = await factory.concurrencyLimiter({ key: 'export', max: 2, lease: 300 }).tryAcquire();
 * if (!slot) throw new RateLimitExceededException();
 * try {
 *   await runExport();
 * } finally {
 *   await slot.release();
 * }
 * ```
 *
 * @publicApi
 */
export class ConcurrencyLimiter {
  constructor(
    private readonly store: DecisionSource,
    readonly key: string,
    readonly params: ConcurrencyLimitParams,
  ) {}

  /**
   * Takes `permits` slots (an integer >= 0, default 1) for `id` if that many are free, and
   * returns the full decision. An `id` already in flight with the same permits renews its
   * lease and keeps its slots; `0` peeks; more than `max` is denied with `retryAfterMs` -1
   * (it can never pass). Lower level than {@link tryAcquire}: the caller must
   * {@link release} the same id and permits.
   */
  async decide(id: string, permits = 1): Promise<Decision> {
    const request = concurrencyLimitRequest('acquire', id, undefined, permits);
    return this.store.evaluate(concurrencyLimit, this.key, this.params, request);
  }

  /**
   * Gives back the `permits` slots (default 1) `id` took, together; releasing an id not in
   * flight (already released, or its lease ended) changes nothing. The decision reports
   * the slots now free.
   */
  async release(id: string, permits = 1): Promise<Decision> {
    const request = concurrencyLimitRequest('release', id, undefined, permits);
    return this.store.evaluate(concurrencyLimit, this.key, this.params, request);
  }

  /**
   * Takes `permits` slots (default 1) under a new id, held and released together; resolves
   * null, taking nothing, when fewer are free.
   */
  async tryAcquire(permits = 1): Promise<ConcurrencySlot | null> {
    const id = randomUUID();
    const decision = await this.decide(id, permits);
    return decision.allowed ? new Slot(this, id, permits, decision) : null;
  }

  /** The slots free now and how long the key stays blocked, taking none. */
  async peek(): Promise<LimitState> {
    const { peek, peekRequest } = concurrencyLimitOps;
    const decision = await this.store.evaluate(peek, this.key, this.params, peekRequest);
    return limitStateOf(decision);
  }

  /**
   * Refuses new slots on the key for `seconds` (> 0) from now, on every server; slots in
   * flight are kept and their releases still count.
   */
  async block(seconds: Seconds): Promise<void> {
    const micros = manualBlockMicros(seconds);
    await this.store.evaluate(concurrencyLimitOps.block, this.key, this.params, micros);
  }

  /** Forgets every slot in flight on the key (their releases then change nothing). */
  async reset(): Promise<void> {
    await this.store.evaluate(concurrencyLimitOps.reset, this.key, this.params, undefined);
  }
}

class Slot implements ConcurrencySlot {
  private released?: Promise<void>;

  constructor(
    private readonly limiter: ConcurrencyLimiter,
    readonly id: string,
    private readonly permits: number,
    readonly decision: Decision,
  ) {}

  release(): Promise<void> {
    this.released ??= this.limiter.release(this.id, this.permits).then(
      () => undefined,
      (error: unknown) => {
        // Nothing was released: let a later call try again (the lease frees it regardless).
        this.released = undefined;
        throw error;
      },
    );
    return this.released;
  }
}
