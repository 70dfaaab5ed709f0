import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';

/**
 * The rules several algorithms' options share, each failing start-up with a message that
 * names `where`, the option and the value as given.
 */

/** A count such as `limit`, `max` or `capacity`: an integer >= 1. */
export function integerAtLeastOne(value: unknown, where: string, option: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, option, value, 'an integer >= 1'),
    );
  }
  return value as number;
}

/**
 * A rate or a time already in seconds: a finite number > 0. `given` is what the caller
 * wrote (a duration string before its conversion), for the message.
 */
export function finiteAboveZero(
  value: unknown,
  where: string,
  option: string,
  given: unknown = value,
): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, option, given, 'a finite number > 0'),
    );
  }
  return value;
}

/**
 * Refuses the options no one reads, all at once, each with the known name it is closest to:
 * a typo (`perod`) would otherwise leave the default in force without a word.
 */
export function refuseUnknownOptions(
  options: object,
  known: ReadonlySet<string>,
  where: string,
): void {
  for (const name in options) {
    if (known.has(name)) continue;
    const unknown = Object.keys(options).filter((option) => !known.has(option));
    throw new LimiterConfigError(limiterMessages.unknownOptions(where, unknown, [...known]));
  }
}
