import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { LIMIT_KINDS, overridableOptions } from '../algorithms/registry';

/** Options of a limit, by its name, that replace the decorator's (the admin module's live overrides). */
export type LimitOverrides = ReadonlyMap<string, Readonly<Record<string, unknown>>>;

/** The options an override may change: numbers of the algorithms, never a key or a kind. */
export const OVERRIDABLE_OPTIONS: readonly string[] = overridableOptions(LIMIT_KINDS);

/** Refuses an override of an option that is not a number of the algorithm (its key, its kind). */
export function checkOverrides(overrides: LimitOverrides): void {
  for (const [name, options] of overrides) {
    const refused = Object.keys(options).find((option) => !OVERRIDABLE_OPTIONS.includes(option));
    if (refused !== undefined) {
      throw new LimiterConfigError(
        limiterMessages.invalidOption(
          `override of '${name}'`,
          refused,
          options[refused],
          `unset: an override changes only ${OVERRIDABLE_OPTIONS.join(', ')}`,
        ),
      );
    }
  }
}
