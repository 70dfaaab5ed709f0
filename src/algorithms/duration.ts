export type { Duration, Seconds } from '../contracts/duration';

/**
 * Milliseconds written where seconds belong: @nestjs/throttler's `ttl: 60000` is a minute,
 * the same `period: 60000` here is 16.7 hours, and `period: 1500` meant as 1.5 s is 25
 * minutes. Any bare number from 1,000 up on a time option is suspect, whatever the limit: a
 * window of 1,000 s or more reads as plainly in a duration string ('1h', '1d').
 */
const SUSPECT_MIN_SECONDS = 1000;

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

/** A time option given as a bare number that looks like milliseconds. */
interface MillisecondsSuspect {
  /** The option as written: `period`, or `block[1]` for a step of escalating blocks. */
  option: string;
  value: number;
}

/**
 * The options among `durations` given as a bare number of 1,000 or more (each step of an
 * array, as `block` takes): numbers that are more often milliseconds than seconds. A function
 * of the request or a duration string is never suspect.
 */
export function millisecondsSuspects(
  options: Readonly<Record<string, unknown>>,
  durations: readonly string[],
): MillisecondsSuspect[] {
  const found: MillisecondsSuspect[] = [];
  const look = (option: string, value: unknown) => {
    if (typeof value === 'number' && value >= SUSPECT_MIN_SECONDS) found.push({ option, value });
  };
  for (const option of durations) {
    const value = options[option];
    if (Array.isArray(value)) value.forEach((step, i) => look(`${option}[${i}]`, step));
    else look(option, value);
  }
  return found;
}
