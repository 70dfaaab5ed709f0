import { Decision, RawReply, toDecision } from '../../contracts/decision';
import { CycleNeighbourhood } from '../../calendar/calendar-cycle';
import { customKeyPart } from '../../keys/key-builder';
import { LimiterConfigError } from '../../errors/limiter-config.error';
import { limiterMessages } from '../../rate-limiter.messages';
import { defineAlgorithm } from '../define-algorithm';
import { DecisionSource } from '../decision-source';
import { checkPermits, staticPermits } from '../permits';
import { quotaLimitStep } from './quota-limit.memory';
import {
  cyclesAround,
  quotaLimitArgv,
  QuotaLimiterOptions,
  QuotaLimitParams,
  quotaLimitParams,
  QuotaRequest,
  quotaRequestArgv,
  REPEATED,
  SOFT_LIMIT_REACHED,
} from './quota-limit.model';

/** `@QuotaLimit`, `factory.quota` and `QuotaLimiter`. */
const quotaLimitDefinition = defineAlgorithm({
  name: 'quotaLimit',
  decorator: '@QuotaLimit',
  prefix: 'quota:',
  options: [
    'limit',
    'cycle',
    'timeZone',
    'anchor',
    'weekStart',
    'softLimit',
    'idempotencyWindow',
    'idempotencyKey',
    'permits',
  ],
  requestOptions: ['permits', 'idempotencyKey'],
  fixedOptions: ['cycle', 'timeZone', 'anchor', 'weekStart', 'idempotencyWindow', 'idempotencyKey'],
  durations: ['idempotencyWindow'],
  stateType: 'string',
  limiter: (source, key, params) => new QuotaLimiter(source, key, params),
  core: {
    paramsArgv: quotaLimitArgv,
    requestArgv: quotaRequestArgv,
    step: quotaLimitStep,
    limit: (params) => params.limit,
    decision: quotaDecision,
    // A usage read or a credit decides nothing: no `allowed` event for them.
    isDecision: (request) => request.permits > 0 && !request.credit,
  },
  params: (options: QuotaLimiterOptions, where) =>
    quotaLimitParams(options as QuotaLimiterOptions & Record<string, unknown>, where),
  requests(options, params, where) {
    const cost = staticPermits(options.permits, params.limit, where);
    const id = idempotencyIdOf(options.idempotencyKey, where);
    const { startMs, endMs } = cyclesAround(params, Date.now());
    return {
      newRequest: (permits = cost): QuotaRequest => ({
        permits,
        idempotencyKey: id,
        cycles: cyclesAround(params, Date.now()),
      }),
      windowSeconds: (endMs - startMs) / 1000,
    };
  },
});

/** What the limits run, and its kind. */
export const { algorithm: quotaLimit, kind: quotaLimitKind } = quotaLimitDefinition;

/** The reply read as a decision, with the quota's usage and flags from its fifth value. */
function quotaDecision(reply: RawReply, limit: number): Decision {
  const extra = reply[4];
  const decision = toDecision([reply[0], reply[1], reply[2], reply[3], 0], limit);
  decision.quota = {
    used: Math.floor(extra / 4),
    softLimitReached: (extra & SOFT_LIMIT_REACHED) !== 0,
    repeated: (extra & REPEATED) !== 0,
  };
  return decision;
}

/** An idempotency key as the Lua appends it to the state's key: escaped and bounded. */
function idempotencyIdOf(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string' || value === '') {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'idempotencyKey', value, 'a non-empty string'),
    );
  }
  return customKeyPart(value, 'quotaLimit');
}

/** What `consume` answers: the decision's fields and the cycle's usage. @publicApi */
export interface QuotaConsumption extends QuotaUsage {
  allowed: boolean;
  /** Ms until the cycle ends (the next starts). */
  resetMs: number;
  /** When denied: ms until the next cycle, or -1 for a cost above `limit`; 0 when allowed. */
  retryAfterMs: number;
  /** Its idempotency key was charged already this cycle: charged nothing, answered as the first. */
  repeated: boolean;
  /** This call brought usage to the soft limit (once per cycle and key, fleet-wide). */
  softLimitReached: boolean;
}

/** A cycle's usage, times in epoch ms. @publicApi */
export interface QuotaUsage {
  used: number;
  /** The cycle's allowance: the quota's limit plus this cycle's credits. */
  limit: number;
  remaining: number;
  cycleStart: number;
  resetsAt: number;
}

/**
 * A calendar quota on one key: `limit` permits per day, week, month or year in a time zone.
 * The math: quota-limit.model.ts; the cycles' rules: calendar/calendar-cycle.ts.
 *
 * @publicApi
 */
export class QuotaLimiter {
  constructor(
    private readonly store: DecisionSource,
    readonly key: string,
    readonly params: QuotaLimitParams,
  ) {}

  /**
   * Takes `permits` (an integer >= 0, default 1) from this cycle; with an `idempotencyKey`
   * charged already this cycle, takes nothing and answers as the first call was answered.
   */
  async consume(permits = 1, options: { idempotencyKey?: string } = {}): Promise<QuotaConsumption> {
    checkPermits(permits, 'QuotaLimiter.consume');
    const id = idempotencyIdOf(options.idempotencyKey, 'QuotaLimiter.consume');
    const { decision, cycles } = await this.decide({ permits, idempotencyKey: id });
    // A store that failed open answers without the quota's facts.
    const facts = decision.quota ?? { repeated: false, softLimitReached: false };
    return {
      ...usageOf(decision, cycles, this.nowMs()),
      allowed: decision.allowed,
      resetMs: decision.resetMs,
      retryAfterMs: decision.retryAfterMs,
      repeated: facts.repeated,
      softLimitReached: facts.softLimitReached,
    };
  }

  /** This cycle's usage; consumes nothing. */
  async usage(): Promise<QuotaUsage> {
    const { decision, cycles } = await this.decide({ permits: 0 });
    return usageOf(decision, cycles, this.nowMs());
  }

  /** Adds `permits` (an integer >= 1) to this cycle's allowance only. */
  async credit(permits: number): Promise<QuotaUsage> {
    if (!Number.isInteger(permits) || permits < 1) {
      throw new RangeError(`credit(permits): an integer >= 1, got ${String(permits)}`);
    }
    const { decision, cycles } = await this.decide({ permits: 0, credit: permits });
    return usageOf(decision, cycles, this.nowMs());
  }

  private nowMs(): number {
    return this.store.currentTimeMs?.() ?? Date.now();
  }

  private async decide(request: Omit<QuotaRequest, 'cycles'>) {
    const cycles = cyclesAround(this.params, this.nowMs());
    const decision = await this.store.evaluate({
      algorithm: quotaLimit,
      key: this.key,
      params: this.params,
      request: { ...request, cycles },
    });
    return { decision, cycles };
  }
}

/**
 * The usage a decision reports. Its cycle is the one whose end is nearest the store's reset
 * (the store decides on its own clock, which may be a little off the app's).
 */
function usageOf(decision: Decision, cycles: CycleNeighbourhood, nowMs: number): QuotaUsage {
  const used = decision.quota?.used ?? 0;
  const endsAt = nowMs + decision.resetMs;
  const ends = [cycles.startMs, cycles.endMs, cycles.nextEndMs];
  const starts = [cycles.previousStartMs, cycles.startMs, cycles.endMs];
  let at = 1;
  for (let i = 0; i < 3; i++) {
    if (Math.abs(ends[i] - endsAt) < Math.abs(ends[at] - endsAt)) at = i;
  }
  return {
    used,
    limit: used + decision.remaining,
    remaining: decision.remaining,
    cycleStart: starts[at],
    resetsAt: ends[at],
  };
}
