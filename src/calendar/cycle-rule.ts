import { LimiterConfigError } from '../errors/limiter-config.error';
import { limiterMessages } from '../rate-limiter.messages';
import { CYCLE_UNITS, CycleAnchor, CycleRule, CycleUnit, daysInMonth } from './calendar-cycle';
import { isTimeZone, wallTimeAt } from './zone-time';

/** The options a cycle is made of, as `@QuotaLimit` and `factory.quota` take them. */
interface CycleOptions {
  cycle: unknown;
  timeZone?: unknown;
  anchor?: unknown;
  weekStart?: unknown;
}

const DAY_MS = 86_400_000;

// YYYY-MM-DD, then optionally THH:MM, :SS, .sss, and Z or an offset ±HH:MM.
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;

function invalid(where: string, option: string, value: unknown, expected: string): never {
  throw new LimiterConfigError(limiterMessages.invalidOption(where, option, value, expected));
}

/** The unit, or a start-up error naming `cycle`. */
function cycleUnitOf(value: unknown, where: string): CycleUnit {
  if (!CYCLE_UNITS.includes(value as CycleUnit)) {
    throw new LimiterConfigError(limiterMessages.invalidChoice(where, 'cycle', value, CYCLE_UNITS));
  }
  return value as CycleUnit;
}

/** An IANA zone name the platform knows, or a start-up error naming `timeZone`. */
function timeZoneOf(value: unknown, where: string): string {
  if (!isTimeZone(value)) {
    invalid(where, 'timeZone', value, "an IANA time zone name such as 'Europe/Paris' or 'UTC'");
  }
  return value;
}

/**
 * The rule of a quota's cycles (calendar-cycle.ts tells the rules), its options validated:
 * `timeZone` resolved already (a template or function is resolved per request).
 */
export function cycleRuleOf(options: CycleOptions, where: string): CycleRule {
  const unit = cycleUnitOf(options.cycle, where);
  const timeZone = timeZoneOf(options.timeZone ?? 'UTC', where);
  const weekday = weekStartOf(options.weekStart, where);
  return { unit, timeZone, anchor: anchorOf(unit, options.anchor, weekday, timeZone, where) };
}

function weekStartOf(value: unknown, where: string): number {
  if (value === undefined) return 1;
  if (!Number.isInteger(value) || (value as number) < 1 || (value as number) > 7) {
    invalid(where, 'weekStart', value, 'an ISO weekday from 1 (Monday) to 7 (Sunday)');
  }
  return value as number;
}

function anchorOf(
  unit: CycleUnit,
  value: unknown,
  weekday: number,
  timeZone: string,
  where: string,
): CycleAnchor {
  if (value === undefined) return { month: 1, day: 1, weekday, timeOfDayMs: 0 };
  if (typeof value === 'number') {
    if (unit !== 'month') {
      invalid(
        where,
        'anchor',
        value,
        `an ISO date-time for cycle '${unit}' (a day number is for 'month')`,
      );
    }
    if (!Number.isInteger(value) || value < 1 || value > 31) {
      invalid(where, 'anchor', value, 'a day of the month from 1 to 31, or an ISO date-time');
    }
    return { month: 1, day: value, weekday, timeOfDayMs: 0 };
  }
  const wall = typeof value === 'string' ? wallTimeOfIso(value, timeZone) : undefined;
  if (wall === undefined) {
    invalid(
      where,
      'anchor',
      value,
      "a day of the month from 1 to 31, or an ISO date-time such as '2026-01-31T09:30'",
    );
  }
  const date = new Date(wall);
  const dayNumber = Math.floor(wall / DAY_MS);
  return {
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: ((((dayNumber + 3) % 7) + 7) % 7) + 1,
    timeOfDayMs: wall - dayNumber * DAY_MS,
  };
}

/**
 * The wall time (local ms) an ISO date-time names in `timeZone`: without an offset, itself;
 * with one, the zone's wall time at that instant. Undefined when it is no valid date-time.
 */
function wallTimeOfIso(text: string, timeZone: string): number | undefined {
  const fields = ISO_DATE_TIME.exec(text);
  if (!fields) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '0', zone] = fields;
  const ms = Number(fraction.padEnd(3, '0'));
  const local = Date.UTC(+year, +month - 1, +day, +hour, +minute, +second, ms);
  const valid =
    +month >= 1 &&
    +month <= 12 &&
    +day >= 1 &&
    +day <= daysInMonth(+year, +month) &&
    +hour <= 23 &&
    +minute <= 59 &&
    +second <= 59;
  if (!valid) return undefined;
  if (zone === undefined) return local;
  const sign = zone === 'Z' ? 0 : zone.startsWith('-') ? -1 : 1;
  const [offsetHours, offsetMinutes] = zone === 'Z' ? [0, 0] : zone.slice(1).split(':').map(Number);
  if (offsetHours > 23 || offsetMinutes > 59) return undefined;
  const instant = local - sign * (offsetHours * 3_600_000 + offsetMinutes * 60_000);
  return wallTimeAt(instant, timeZone);
}
