import { randomUUID } from 'node:crypto';
import { Decision } from '../../contracts/decision';
import { Seconds } from '../duration';
import { defineAlgorithm } from '../define-algorithm';
import { DecisionSource } from '../decision-source';
import { EngineAlgorithm } from '../engine-algorithm';
import { exactString } from '../limiter-algorithm';
import { permitsArgv } from '../permits';
import { LimitState, limitStateOf, manualBlockMicros } from '../state-ops/state-ops.model';
import { concurrencyLimitBlockStep, concurrencyLimitStep } from './concurrency-limit.memory';
import {
  ConcurrencyLimiterOptions,
  ConcurrencySlot,
  ConcurrencyLimitParams,
  concurrencyLimitParams,
  ConcurrencyLimitRequest,
  concurrencyLimitRequest,
  ConcurrencyLimitState,
} from './concurrency-limit.model';

/** A concurrency denial's Retry-After is a short fixed hint, not the lease. */
const CONCURRENCY_RETRY_AFTER_MS = 1000;

/**
 * `@ConcurrencyLimit`, `factory.concurrencyLimiter` and `ConcurrencyLimiter`: Lua for Redis,
 * {@link concurrencyLimitStep} in memory. Its requests hold slots until their work ends.
 */
const concurrencyLimitDefinition = defineAlgorithm<
  ConcurrencyLimiterOptions,
  ConcurrencyLimitParams,
  ConcurrencyLimitRequest,
  ConcurrencyLimitState,
  ConcurrencyLimiter
>({
  name: 'concurrencyLimit',
  decorator: '@ConcurrencyLimit',
  prefix: 'concurrency:',
  options: ['max', 'lease', 'permits'],
  requestOptions: ['permits'],
  durations: ['lease'],
  stateType: 'zset',
  limiter: (source, key, params) => new ConcurrencyLimiter(source, key, params),
  core: {
    paramsArgv: (params) => [String(params.max), exactString(params.leaseMicros)],
    requestArgv: (request) => [request.op, request.id, ...permitsArgv(request)],
    step: concurrencyLimitStep,
    limit: (params) => params.max,
    isDecision: (request) => request.op === 'acquire',
  },
  params: concurrencyLimitParams,
  // A request runs, so it holds a slot whatever its cost: a cost of 0 takes one.
  permitRequest: (permits): ConcurrencyLimitRequest => ({
    op: 'acquire',
    id: randomUUID(),
    permits: Math.max(1, permits),
  }),
  slots: {
    release: ({ id, permits }): ConcurrencyLimitRequest => ({ op: 'release', id, permits }),
    // An acquire of an id in flight renews its lease (concurrency-limit.model.ts).
    leaseMs: (params) => params.leaseMicros / 1000,
    block: blockOf,
    // The block hidden from the acquire, as peek_of hides it in the Lua: a peek that finds
    // no free slot reports the leases' retry time, and the block's when it is longer.
    peekState: (state, _now, expiresAt) => ({ state: { leases: state.leases }, expiresAt }),
    // A denial that outlasts any lease comes from a block(): its end is the real answer;
    // one that can never pass (more slots than max) has none.
    retryAfterMs: (decision, params) =>
      decision.retryAfterMs < 0 || decision.retryAfterMs > params.leaseMicros / 1000
        ? decision.retryAfterMs
        : CONCURRENCY_RETRY_AFTER_MS,
  },
});

/** What the limits run (it keeps its block itself), and its kind. */
export const { algorithm: concurrencyLimit, kind: concurrencyLimitKind } =
  concurrencyLimitDefinition;

/**
 * Peek, reset and block on a concurrency key. No refund: a slot is released.
 * A block denies acquires only: a release is never refused.
 */
export const concurrencyLimitOps = {
  ...concurrencyLimitDefinition.ops,
  /** A peek takes 0 slots: the leases as they stand. */
  peekRequest: concurrencyLimitRequest('acquire', 'peek', undefined, 0),
};

/**
 * Blocks the key for the request's µs from now: acquires are denied until then, releases
 * still run (concurrency-limit.lua). The block is the zset member '#block', as on the sliding log.
 */
function blockOf(
  acquire: EngineAlgorithm<ConcurrencyLimitParams, ConcurrencyLimitRequest, ConcurrencyLimitState>,
): EngineAlgorithm<ConcurrencyLimitParams, number, ConcurrencyLimitState> {
  return {
    commandName: `${acquire.commandName}Block`,
    stateOf: acquire,
    // state-ops.lua's block_of(zset_block, true): written over any earlier block (a
    // concurrency key keeps no levels).
    paramsArgv: () => [],
    requestArgv: (micros) => [String(micros)],
    step: concurrencyLimitBlockStep,
    limit: acquire.limit,
  };
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
   * lease and keeps its slots; `0` peeks (allowed only while a slot is free); more than
   * `max` is denied with `retryAfterMs` -1 (it can never pass). Lower level than
   * {@link tryAcquire}: the caller must {@link release} the same id and permits.
   */
  async decide(id: string, permits = 1): Promise<Decision> {
    const request = concurrencyLimitRequest('acquire', id, undefined, permits);
    return this.store.evaluate({
      algorithm: concurrencyLimit,
      key: this.key,
      params: this.params,
      request,
    });
  }

  /**
   * Gives back the `permits` slots (default 1) `id` took, together; releasing an id not in
   * flight (already released, or its lease ended) changes nothing. The decision reports
   * the slots now free.
   */
  async release(id: string, permits = 1): Promise<Decision> {
    const request = concurrencyLimitRequest('release', id, undefined, permits);
    return this.store.evaluate({
      algorithm: concurrencyLimit,
      key: this.key,
      params: this.params,
      request,
    });
  }

  /**
   * Takes `permits` slots (default 1, at least 1: work in flight holds a slot) under a new
   * id, held and released together; resolves null, taking nothing, when fewer are free.
   */
  async tryAcquire(permits = 1): Promise<ConcurrencySlot | null> {
    if (permits === 0) permits = 1;
    const id = randomUUID();
    const decision = await this.decide(id, permits);
    return decision.allowed ? new Slot(this, id, permits, decision) : null;
  }

  /** The slots free now and how long the key stays blocked, taking none. */
  async peek(): Promise<LimitState> {
    const { peek, peekRequest } = concurrencyLimitOps;
    const decision = await this.store.evaluate({
      algorithm: peek,
      key: this.key,
      params: this.params,
      request: peekRequest,
    });
    return limitStateOf(decision);
  }

  /**
   * Refuses new slots on the key for `seconds` (> 0) from now, on every server; slots in
   * flight are kept and their releases still count.
   */
  async block(seconds: Seconds): Promise<void> {
    const micros = manualBlockMicros(seconds);
    await this.store.evaluate({
      algorithm: concurrencyLimitOps.block,
      key: this.key,
      params: this.params,
      request: micros,
    });
  }

  /** Forgets every slot in flight on the key (their releases then change nothing). */
  async reset(): Promise<void> {
    await this.store.evaluate({
      algorithm: concurrencyLimitOps.reset,
      key: this.key,
      params: this.params,
      request: undefined,
    });
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
