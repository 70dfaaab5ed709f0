import { ConcurrencyLimitOptions } from '../decorators/concurrency-limit.decorator';
import { CountLimitOptions } from '../decorators/count-limit.decorator';
import { LeakyBucketLimitOptions } from '../decorators/leaky-bucket-limit.decorator';
import { ALGORITHM_NAMES } from '../algorithms/registry';
import { SlidingWindowLimitOptions } from '../decorators/sliding-window-limit.decorator';
import { RateLimitOptions } from '../decorators/rate-limit.decorator';
import { LimitDefinition } from '../contracts/limit-definition';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { LimitType } from '../contracts/limit-type.enum';
import { limiterMessages } from '../rate-limiter.messages';

/**
 * An app-wide limit (`RateLimiterModule.forRoot({ defaults })`): the options of the
 * decorator that `algorithm` names. It applies to every handler the guard sees, each with
 * its own key, by client IP unless `limitType` or `key` says otherwise. A decorator with
 * the same `name` replaces it on its handler or class.
 *
 * @example
 * ```ts
 * RateLimiterModule.forRoot({
 *   defaults: [
 *     { name: 'short', algorithm: 'countLimit', limit: 3, period: 1 },
 *     { name: 'long', algorithm: 'countLimit', limit: 100, period: 60 },
 *   ],
 * })
 * ```
 * @publicApi
 */
export type DefaultLimit =
  | ({ algorithm: 'rateLimit' } & RateLimitOptions)
  | ({ algorithm: 'countLimit' } & CountLimitOptions)
  | ({ algorithm: 'slidingWindowLimit' } & SlidingWindowLimitOptions)
  | ({ algorithm: 'concurrencyLimit' } & ConcurrencyLimitOptions)
  | ({ algorithm: 'leakyBucketLimit' } & LeakyBucketLimitOptions);

/** The names `algorithm` takes, in messages. */
const ALGORITHMS = ALGORITHM_NAMES.map((name) => `'${name}'`).join(', ');

/**
 * The module's defaults as limit definitions, as if a decorator stood on every handler
 * (`defaults[0]` where a decorator's name would be). Refuses a default that is not an
 * object, an unknown `algorithm`, and a name given twice; the options themselves are
 * checked when compiled, like a decorator's.
 */
export function defaultDefinitions(defaults: unknown, where: string): LimitDefinition[] {
  if (defaults === undefined) return [];
  if (!Array.isArray(defaults)) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, 'defaults', defaults, 'an array of limits'),
    );
  }
  const names = new Set<unknown>();
  return defaults.map((entry: unknown, index) => {
    const label = `defaults[${index}]`;
    if (typeof entry !== 'object' || entry === null) {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(where, label, entry, 'an object with an algorithm'),
      );
    }
    const { algorithm, ...options } = entry as Record<string, unknown>;
    if (!ALGORITHM_NAMES.includes(algorithm as string)) {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(
          `${where}: ${label}`,
          'algorithm',
          algorithm,
          `one of ${ALGORITHMS}`,
        ),
      );
    }
    if (options.name !== undefined) {
      if (names.has(options.name)) {
        throw new LimiterConfigError(
          limiterMessages.duplicateDefaultName(`${where}: ${label}`, String(options.name)),
        );
      }
      names.add(options.name);
    }
    // IP unless the default says otherwise; a key template alone means CUSTOM, as on a decorator.
    if (options.limitType === undefined && options.key === undefined)
      options.limitType = LimitType.IP;
    return Object.freeze({ kind: algorithm as string, decorator: label, options });
  });
}
