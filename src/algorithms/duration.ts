export type { Duration, Seconds } from '../contracts/duration';

/**
 * Milliseconds written where seconds belong are whole seconds of ms: 1000, 60000, 3600000. A
 * window of 1,000 s or more that is a multiple of 1,000, with a limit under 1,000, is far more
 * often that than a real window (@nestjs/throttler's `ttl: 1000` is one second); 900, 3600 or
 * 86400 (a quarter, an hour, a day in seconds) are not.
 */
const SUSPECT_MIN_SECONDS = 1000;
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
 * @nestjs/throttler's `ttl` would mean as a minute, is 16 hours here; its one-second `ttl:
 * 1000` is 16.7 minutes): a whole thousand of seconds, which windows in seconds rarely are
 * (60, 900, 3600, 86400), under a limit that a window of milliseconds would carry. Undefined
 * when nothing looks so.
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
