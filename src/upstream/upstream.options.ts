import { Seconds } from '../algorithms/duration';
import { rateInRange, refuseUnknownOptions, secondsOption } from '../algorithms/option-rules';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';

/**
 * An API the app calls, and the budget every server shares for it: `rate` calls a second,
 * `capacity` at once (the token bucket of `@RateLimit`).
 *
 * @publicApi
 */
export interface UpstreamOptions {
  /** The budget's name: one name is one budget on every server of one Redis. */
  name: string;
  /** Calls a second the upstream allows (> 0): the most the budget ever grants. */
  rate: number;
  /** Calls at once after a quiet spell (the bucket's size). Default: `rate` calls (one second's worth), at least 1. */
  capacity?: number;
  /** How long a call may wait for its slot: seconds or a duration. Default '30s'. */
  timeout?: Seconds;
  /** Whether the upstream's answers (429, `Retry-After`, rate-limit headers) steer the budget. Default true. */
  learn?: boolean;
}

/** One call's options. */
export interface UpstreamCallOptions {
  /** Whose call it is: tenants share a saturated budget by `weight`. Default: one shared tenant. */
  tenant?: string;
  /** The tenant's share (> 0) against others when the budget is saturated. Default 1. */
  weight?: number;
  /** Slots the call takes (an integer >= 1). Default 1. */
  cost?: number;
  /** Aborting it rejects the call at once (if it has not started) and gives its slot back. */
  signal?: AbortSignal;
}

/** An upstream's options, checked and in the units the scheduler works in. */
export interface UpstreamSettings {
  name: string;
  rate: number;
  capacity: number;
  timeoutMs: number;
  learn: boolean;
}

const OPTION_NAMES = new Set(['name', 'rate', 'capacity', 'timeout', 'learn']);
const DEFAULT_TIMEOUT_SECONDS = 30;

function invalid(where: string, option: string, value: unknown, expected: string): never {
  throw new LimiterConfigError(limiterMessages.invalidOption(where, option, value, expected));
}

/** Validates an upstream's options; a mistake names the upstream and the option. */
export function upstreamSettings(options: UpstreamOptions): UpstreamSettings {
  if (typeof options !== 'object' || options === null) {
    invalid('upstream', 'options', options, 'an object with name and rate');
  }
  const { name } = options;
  if (typeof name !== 'string' || name === '')
    invalid('upstream', 'name', name, 'a non-empty string');
  const where = `upstream '${name}'`;
  refuseUnknownOptions(options, OPTION_NAMES, where);
  if (options.rate === undefined)
    invalid(where, 'rate', undefined, 'a number of calls a second > 0');
  const rate = rateInRange(options.rate, where);
  const capacity = options.capacity ?? Math.max(1, rate);
  if (typeof capacity !== 'number' || !Number.isFinite(capacity) || capacity < 1) {
    invalid(where, 'capacity', options.capacity, 'a finite number >= 1');
  }
  const timeout = secondsOption(options.timeout ?? DEFAULT_TIMEOUT_SECONDS, where, 'timeout');
  if (typeof timeout !== 'number' || !(timeout >= 0) || timeout === Infinity) {
    invalid(where, 'timeout', options.timeout, 'a finite number of seconds >= 0 or a duration');
  }
  const learn = options.learn ?? true;
  if (typeof learn !== 'boolean') invalid(where, 'learn', options.learn, 'true or false');
  return { name, rate, capacity, timeoutMs: timeout * 1000, learn };
}

/** Two declarations of one name must agree: one name is one budget. */
export function sameSettings(a: UpstreamSettings, b: UpstreamSettings): boolean {
  return (
    a.rate === b.rate &&
    a.capacity === b.capacity &&
    a.timeoutMs === b.timeoutMs &&
    a.learn === b.learn
  );
}

/** Checks one call's options; returns its tenant, weight and cost. */
export function callSettings(
  upstream: string,
  options: UpstreamCallOptions,
): { tenant: string; weight: number; cost: number } {
  const where = `upstream '${upstream}' call`;
  const { tenant = '', weight = 1, cost = 1 } = options;
  if (typeof tenant !== 'string') invalid(where, 'tenant', tenant, 'a string');
  if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0) {
    invalid(where, 'weight', weight, 'a finite number > 0');
  }
  if (!Number.isInteger(cost) || cost < 1) invalid(where, 'cost', cost, 'an integer >= 1');
  return { tenant, weight, cost };
}
