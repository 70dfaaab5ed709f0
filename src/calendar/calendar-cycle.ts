/*
 * Cycles by the calendar
 * ======================
 *
 * A quota's cycle is a day, a week, a month or a year of the calendar in one time zone, not a
 * number of seconds: a month is 28 to 31 days, and a day 23, 24 or 25 hours where the zone
 * has daylight saving time (23.5 or 24.5 on Lord Howe Island).
 *
 * Every cycle starts at the same wall-clock time, the anchor's:
 * - 'day': every day at the anchor's time of day (default midnight);
 * - 'week': on the anchor's weekday (default `weekStart`, ISO 1 = Monday ... 7 = Sunday);
 * - 'month': on the anchor's day of the month (a number 1-31, or an ISO date's day; default
 *   the 1st). A month without that day starts on its last day: an anchor of 31 gives Jan 31,
 *   Feb 28 (29 in a leap year), Mar 31, Apr 30. Clamping is not cumulative: every month is
 *   clamped from the anchor, never from the month before;
 * - 'year': on the anchor's month and day (default Jan 1); a Feb 29 anchor falls on Feb 28 in
 *   the years without one.
 * An ISO anchor (`'2026-01-31T09:30'`) gives its date's day, month or weekday and its time of
 * day: its wall-clock time repeats in every cycle, before and after it. Without an offset it is
 * a wall time in the quota's zone; with one (`Z`, `+05:30`) it is an instant, and the wall time
 * it shows in the zone repeats.
 *
 * A start's wall time is turned into an instant in the zone: a wall time that the clock skips
 * (a spring-forward gap) is the first instant after the gap (02:30 on New York's
 * spring-forward day is 03:00 EDT); one it reads twice (a fall-back) is the earlier instant. A
 * cycle is [start, next start): an instant equal to a start belongs to the cycle it starts.
 *
 * Finding the cycle of an instant: the cycles are numbered (days, weeks, months or years since
 * 1970), the number of the instant's own wall date is the first guess, and the guess moves
 * back while its start is after the instant, and on while the next start is not after it (a
 * start in a gap or an overlap may lie on the other side of the date's midnight).
 */
import { instantOfWallTime, wallTimeAt } from './zone-time';

export type CycleUnit = 'day' | 'week' | 'month' | 'year';

export const CYCLE_UNITS: readonly CycleUnit[] = ['day', 'week', 'month', 'year'];

const DAY_MS = 86_400_000;

/** Where every cycle starts, in wall-clock terms. */
export interface CycleAnchor {
  /** Month of the year, 1-12 ('year'). */
  month: number;
  /** Day of the month, 1-31, clamped to the month's last ('month', 'year'). */
  day: number;
  /** ISO weekday, 1 (Monday) to 7 ('week'). */
  weekday: number;
  /** Time of day, ms after midnight. */
  timeOfDayMs: number;
}

/** A cycle: [startMs, endMs), epoch ms. */
interface Cycle {
  startMs: number;
  endMs: number;
}

/** A cycle and its neighbours' starts: what a store picks the cycle of its own clock from. */
export interface CycleNeighbourhood extends Cycle {
  previousStartMs: number;
  nextEndMs: number;
}

export interface CycleRule {
  unit: CycleUnit;
  timeZone: string;
  anchor: CycleAnchor;
}

/** Days in `month` (1-12) of `year`. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The wall time (local ms) a cycle numbered `index` starts at. */
function startWallTime(rule: CycleRule, index: number): number {
  const { anchor } = rule;
  switch (rule.unit) {
    case 'day':
      return index * DAY_MS + anchor.timeOfDayMs;
    case 'week': {
      // Day 0 (1970-01-01) was a Thursday, ISO 4.
      const first = (((anchor.weekday - 4) % 7) + 7) % 7;
      return (index * 7 + first) * DAY_MS + anchor.timeOfDayMs;
    }
    case 'month': {
      const year = Math.floor(index / 12);
      const month = index - year * 12 + 1;
      return dateAt(year, month, anchor.day) + anchor.timeOfDayMs;
    }
    case 'year':
      return dateAt(index, anchor.month, anchor.day) + anchor.timeOfDayMs;
  }
}

/** Midnight of `day` (clamped to the month's last) of `month` of `year`, as local ms. */
function dateAt(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, Math.min(day, daysInMonth(year, month)));
}

/** The number of the cycle whose date holds the wall time `wall`: a first guess. */
function indexGuess(rule: CycleRule, wall: number): number {
  const date = new Date(wall);
  switch (rule.unit) {
    case 'day':
      return Math.floor(wall / DAY_MS);
    case 'week': {
      const first = (((rule.anchor.weekday - 4) % 7) + 7) % 7;
      return Math.floor((Math.floor(wall / DAY_MS) - first) / 7);
    }
    case 'month':
      return date.getUTCFullYear() * 12 + date.getUTCMonth();
    case 'year':
      return date.getUTCFullYear();
  }
}

/** The instant cycle `index` starts. */
export function cycleStart(rule: CycleRule, index: number): number {
  return instantOfWallTime(startWallTime(rule, index), rule.timeZone);
}

/** The cycle `instant` (epoch ms) falls in, with its number. */
function cycleIndexAt(rule: CycleRule, instant: number): { index: number } & Cycle {
  let index = indexGuess(rule, wallTimeAt(instant, rule.timeZone));
  let start = cycleStart(rule, index);
  while (start > instant) start = cycleStart(rule, --index);
  let end = cycleStart(rule, index + 1);
  while (end <= instant) {
    index++;
    start = end;
    end = cycleStart(rule, index + 1);
  }
  return { index, startMs: start, endMs: end };
}

/** The cycle `instant` falls in. */
export function cycleAt(rule: CycleRule, instant: number): Cycle {
  const { startMs, endMs } = cycleIndexAt(rule, instant);
  return { startMs, endMs };
}

/** The cycle `instant` falls in, the previous cycle's start and the next one's end. */
export function cycleNeighbourhoodAt(rule: CycleRule, instant: number): CycleNeighbourhood {
  const { index, startMs, endMs } = cycleIndexAt(rule, instant);
  return {
    previousStartMs: cycleStart(rule, index - 1),
    startMs,
    endMs,
    nextEndMs: cycleStart(rule, index + 2),
  };
}
