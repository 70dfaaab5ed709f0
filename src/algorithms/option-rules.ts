import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';

/**
 * The rules the algorithms' options share, each failing start-up with a message that names
 * `where`, the option and the value as given: counts, rates, times (seconds or a duration
 * string), blocks. A model validates its options with them; a definition's `block` is read
 * here too, and made the block's script argument ({@link blockArgv}), so an option goes from
 * the model to its rule and from there to Redis.
 */

/*
 * The ranges every option is held to (docs/option-ranges.md): what the engine computes
 * exactly, the same in Lua and in the memory twin. Times are whole µs in doubles, which stay
 * exact below 2^53; the clock is already near 2^50.6, so a time plus a few of the longest
 * spans must stay under 2^53 for two centuries. Redis keeps TTLs in whole ms.
 */

/** The longest time an option gives: 3650 days, in seconds. */
export const MAX_SECONDS = 315_360_000;
/** The same in µs, as the engine keeps times. */
export const MAX_MICROS = MAX_SECONDS * 1_000_000;
/** The shortest window, period, lease or block: 1 ms, the unit of Redis TTLs. */
export const MIN_SECONDS = 0.001;
/** The largest count (`limit`, `max`, `capacity`): whole and exact as Lua writes numbers. */
export const MAX_COUNT = 1_000_000_000_000;
/** The fastest rate: one permit a µs, the engine's unit of time. */
export const MAX_RATE = 1_000_000;
/** The slowest rate: one permit per {@link MAX_SECONDS}. */
export const MIN_RATE = 1 / MAX_SECONDS;

const TIME_RANGE = `from 1ms to 3650d (${MIN_SECONDS} to ${MAX_SECONDS} seconds)`;
const RATE_RANGE = `from ${MIN_RATE} (one per 3650d) to ${MAX_RATE} (one a µs) per second`;

function outOfRange(where: string, option: string, given: unknown, range: string): never {
  throw new LimiterConfigError(limiterMessages.invalidOption(where, option, given, range));
}

/** A count such as `limit`, `max` or `capacity`: an integer from 1 to {@link MAX_COUNT}. */
export function integerAtLeastOne(value: unknown, where: string, option: string): number {
  if (!Number.isInteger(value) || (value as number) < 1) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, option, value, 'an integer >= 1'),
    );
  }
  if ((value as number) > MAX_COUNT) outOfRange(where, option, value, `at most ${MAX_COUNT}`);
  return value as number;
}

/**
 * A window, period, lease or block in seconds (`given` as written, for the message): from
 * {@link MIN_SECONDS} to {@link MAX_SECONDS}.
 */
export function timeInRange(
  value: unknown,
  where: string,
  option: string,
  given: unknown = value,
): number {
  const seconds = finiteAboveZero(value, where, option, given);
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) outOfRange(where, option, given, TIME_RANGE);
  return seconds;
}

/** A time that may be 0 (`expire`, `burst`, a finite `timeout`): at most {@link MAX_SECONDS}. */
export function timeAtMostMax(seconds: number, where: string, option: string, given: unknown) {
  if (seconds > MAX_SECONDS) outOfRange(where, option, given, `at most 3650d (${MAX_SECONDS} s)`);
}

/** A rate in permits a second: a finite number from {@link MIN_RATE} to {@link MAX_RATE}. */
export function rateInRange(value: unknown, where: string, option = 'rate'): number {
  const rate = finiteAboveZero(value, where, option);
  if (rate < MIN_RATE || rate > MAX_RATE) outOfRange(where, option, value, RATE_RANGE);
  return rate;
}

/**
 * A bucket's span (`capacity` permits of `intervalMicros` each) within {@link MAX_MICROS}:
 * its level in time is added to the clock. Names both options, since either may be the one
 * a request resolves.
 */
export function spanInRange(
  capacity: number,
  intervalMicros: number,
  rate: number,
  where: string,
): void {
  if (capacity * intervalMicros <= MAX_MICROS) return;
  outOfRange(
    where,
    'capacity',
    capacity,
    `at most rate * 3650d (option 'rate' is ${rate}: ${Math.floor(rate * MAX_SECONDS)})`,
  );
}

/**
 * A rate or a time already in seconds: a finite number > 0. `given` is what the caller
 * wrote (a duration string before its conversion), for the message.
 */
function finiteAboveZero(
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

/** Seconds of a block option or `block(seconds)`, as whole µs; 0 means none. */
export function blockMicros(seconds: number | undefined): number {
  return seconds === undefined ? 0 : Math.round(seconds * 1_000_000);
}

/**
 * The block parameters of a `block` option: seconds > 0, or a non-empty array of them
 * (escalating steps; one step is a single block). Nothing when absent.
 */
export function blockParams(
  value: unknown,
  where: string,
): { blockMicros: number; blockStepsMicros?: number[] } {
  if (value === undefined) return { blockMicros: 0 };
  if (!Array.isArray(value)) return { blockMicros: blockOption(value, where, 'block') };
  if (value.length === 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(
        where,
        'block',
        value,
        'seconds > 0 or a duration, or a non-empty array of them',
      ),
    );
  }
  const steps = value.map((step: unknown, i) => blockOption(step, where, `block[${i}]`));
  return steps.length === 1
    ? { blockMicros: steps[0] }
    : { blockMicros: steps[0], blockStepsMicros: steps };
}

/**
 * The block as the script's first argument (blockable.lua reads it): the block in µs, or
 * escalating steps joined by commas. Read in Lua as a number when it is one, so a single
 * block costs no parsing.
 */
export function blockArgv(params: {
  blockMicros?: number;
  blockStepsMicros?: readonly number[];
}): string {
  return params.blockStepsMicros
    ? params.blockStepsMicros.join(',')
    : String(params.blockMicros ?? 0);
}

/** A positive finite number of seconds or a duration, in the times' range, as whole µs. */
export function blockOption(given: unknown, where: string, name = 'block'): number {
  const value = secondsOption(given, where, name);
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new LimiterConfigError(
      limiterMessages.invalidOption(where, name, given, 'a finite number of seconds > 0'),
    );
  }
  if (value < MIN_SECONDS || value > MAX_SECONDS) outOfRange(where, name, given, TIME_RANGE);
  return blockMicros(value);
}
