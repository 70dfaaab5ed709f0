import { ALGORITHM_NAMES } from '../algorithms/registry';
import { LimitDefinition } from '../contracts/limit-definition';
import { LimiterConfigError } from '../errors/limiter-config.error';
import { LimitType } from '../contracts/limit-type.enum';
import { limiterMessages } from '../rate-limiter.messages';

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
