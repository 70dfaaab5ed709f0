import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { parseKeyTemplate } from '../keys/key-template.parser';
import type { AdaptiveAlgorithm, AdaptiveLimitSettings } from './adaptive-limit.model';

/**
 * A request's class under overload: `sheddable` requests are refused first, then `normal`
 * ones; `critical` requests alone may use the `reserve`.
 *
 * @publicApi
 */
export type OverloadPriority = 'critical' | 'normal' | 'sheddable';

/**
 * Options of `@AdaptiveConcurrencyLimit` and of the module's `overload`.
 *
 * @publicApi
 */
export interface AdaptiveConcurrencyLimitOptions {
  /** The limit before anything is learned: an integer >= 1, default 20. */
  initialLimit?: number;
  /** The limit never falls below this: an integer >= 1, default 1. */
  minLimit?: number;
  /** The limit never rises above this: an integer >= `minLimit`, default 1000. */
  maxLimit?: number;
  /** How the limit follows latency: `'gradient2'` (default) or `'aimd'`. */
  algorithm?: AdaptiveAlgorithm;
  /**
   * The request's class: a key template such as `'#{headers["x-priority"]}'`, or a function
   * of the request (the HTTP request, the WebSocket client or the RPC context). Anything but
   * `'critical'`, `'normal'` or `'sheddable'`, a missing value included, is `'normal'`.
   */
  priority?: string | ((request: any) => string | undefined);
  /** The share of the limit only critical requests may use: from 0 to less than 1, default 0.2. */
  reserve?: number;
}

/** The options with every default applied. */
export interface OverloadSettings extends AdaptiveLimitSettings {
  priority?: AdaptiveConcurrencyLimitOptions['priority'];
  reserve: number;
}

const OVERLOAD_DEFAULTS = {
  initialLimit: 20,
  minLimit: 1,
  maxLimit: 1000,
  algorithm: 'gradient2',
  reserve: 0.2,
} as const;

const KNOWN: { readonly [name in keyof Required<AdaptiveConcurrencyLimitOptions>]: true } = {
  initialLimit: true,
  minLimit: true,
  maxLimit: true,
  algorithm: true,
  priority: true,
  reserve: true,
};
const ALGORITHMS: readonly AdaptiveAlgorithm[] = ['gradient2', 'aimd'];

/**
 * The options checked and completed. `where` names the declaration in the error
 * (`@AdaptiveConcurrencyLimit on Cls.m`); `prefix` goes before each option's name
 * (`overload.` for the module's).
 *
 * @throws LimiterConfigError naming the option and its value
 */
export function overloadSettings(options: unknown, where: string, prefix = ''): OverloadSettings {
  if (options === undefined) options = {};
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(
        where,
        prefix.replace(/\.$/, '') || 'options',
        options,
        'an object',
      ),
    );
  }
  const given = options as Record<string, unknown>;
  const unknown = Object.keys(given).filter((name) => !(name in KNOWN));
  if (unknown.length > 0) {
    throw new LimiterConfigError(
      limiterMessages.unknownOptions(
        where,
        unknown.map((name) => prefix + name),
        Object.keys(KNOWN),
      ),
    );
  }
  const fail = (option: string, expected: string): never => {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, prefix + option, given[option], expected),
    );
  };
  const integer = (option: 'initialLimit' | 'minLimit' | 'maxLimit', min: number): number => {
    const value = given[option] ?? OVERLOAD_DEFAULTS[option];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      fail(option, `an integer >= ${min}`);
    }
    return value as number;
  };
  const minLimit = integer('minLimit', 1);
  const maxLimit = integer('maxLimit', minLimit);
  const initialLimit =
    given.initialLimit === undefined
      ? Math.min(maxLimit, Math.max(minLimit, OVERLOAD_DEFAULTS.initialLimit))
      : integer('initialLimit', minLimit);
  if (initialLimit > maxLimit) fail('initialLimit', `an integer from ${minLimit} to ${maxLimit}`);
  const algorithm = given.algorithm ?? OVERLOAD_DEFAULTS.algorithm;
  if (!ALGORITHMS.includes(algorithm as AdaptiveAlgorithm))
    fail('algorithm', `'gradient2' or 'aimd'`);
  const reserve = given.reserve ?? OVERLOAD_DEFAULTS.reserve;
  if (typeof reserve !== 'number' || !(reserve >= 0 && reserve < 1)) {
    fail('reserve', 'a number from 0 to less than 1');
  }
  const priority = given.priority;
  if (priority !== undefined && typeof priority !== 'function') {
    if (typeof priority !== 'string') fail('priority', 'a key template or a function');
    try {
      parseKeyTemplate(priority as string);
    } catch (error) {
      fail('priority', `a key template (${(error as Error).message})`);
    }
  }
  return {
    initialLimit,
    minLimit,
    maxLimit,
    algorithm: algorithm as AdaptiveAlgorithm,
    reserve: reserve as number,
    priority: priority as OverloadSettings['priority'],
  };
}
