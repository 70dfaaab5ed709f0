import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';

export type { Duration, Seconds } from '../contracts/duration';

/**
 * The whole grammar: no sign, no exponent, no spaces, one unit. Anything looser would let a
 * typo (`'1 m'`, `'60000'` meant as ms, `'1min'`) pass as some other time.
 */
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/;

const SECONDS_PER_UNIT: Readonly<Record<string, number>> = {
  ms: 0.001,
  s: 1,
  m: 60,
  h: 3600,
  d: 86_400,
};

/** What a time option accepts, for messages. */
export const DURATION_EXPECTED =
  "seconds (a number) or a duration string: a number then ms, s, m, h or d, such as '500ms', '30s', '1m', '1h', '1d'";

/** The seconds a duration string stands for, or undefined when it does not follow the grammar. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (!match) return undefined;
  // 1000 ms must be exactly 1 s: divide rather than multiply by 0.001.
  if (match[2] === 'ms') return Number(match[1]) / 1000;
  return Number(match[1]) * SECONDS_PER_UNIT[match[2]];
}

/**
 * A time option in seconds: a number is returned as given (the option's own rule checks
 * it), a duration string converted; a string outside the grammar fails naming `where`, the
 * option and the value. Other values pass through for the option's own rule to refuse.
 */
export function secondsOption(value: unknown, where: string, option: string): unknown {
  if (typeof value !== 'string') return value;
  const seconds = parseDuration(value);
  if (seconds === undefined) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, option, value, DURATION_EXPECTED),
    );
  }
  return seconds;
}

/**
 * Milliseconds written where seconds belong are whole seconds of ms: 60000, 3600000. A window
 * of 10,000 s or more that is a multiple of 1,000, with a limit under 1,000, is far more often
 * that than a real window of hours; 3600 or 86400 (an hour, a day in seconds) are not.
 */
const SUSPECT_MIN_SECONDS = 10_000;
const SUSPECT_MAX_LIMIT = 1000;
const WINDOW_OPTIONS = ['period', 'window'] as const;

/** The shortest duration string for whole milliseconds: 60000 -> '1m', 1500 -> '1500ms'. */
export function durationOfMilliseconds(milliseconds: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [unit, size] of units) {
    if (milliseconds % size === 0) return `${milliseconds / size}${unit}`;
  }
  return `${milliseconds}ms`;
}

/**
 * The window option whose plain number looks like milliseconds (`period: 60000`, which
 * @nestjs/throttler's `ttl` would mean as a minute, is 16 hours here). Undefined when nothing
 * looks so.
 */
export function millisecondsSuspect(
  options: Readonly<Record<string, unknown>>,
): { option: string; value: number } | undefined {
  const { limit } = options;
  if (typeof limit !== 'number' || limit >= SUSPECT_MAX_LIMIT) return undefined;
  for (const option of WINDOW_OPTIONS) {
    const value = options[option];
    if (typeof value === 'number' && value >= SUSPECT_MIN_SECONDS && value % 1000 === 0) {
      return { option, value };
    }
  }
  return undefined;
}
