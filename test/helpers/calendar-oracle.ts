/**
 * An independent calendar for checking src/calendar: it shares no code with it and computes
 * another way. A zone's offsets come from Intl's `longOffset` name ("GMT+05:45"), not from its
 * wall-clock fields; the zone's changes over the years checked are found once by stepping a
 * day at a time and bisecting each change to the ms, and a wall time's instant is then the
 * first instant whose wall clock reads it or later, read from that table. Dates are civil
 * days counted with Hinnant's algorithm (no `Date`), weekdays and month lengths by rule, and a
 * cycle is found by listing every start around the instant and taking the last one not after it.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** One zone's offsets: `offsets[i]` holds from `changes[i - 1]` (from the range's start for 0). */
export interface ZoneTable {
  zone: string;
  changes: number[];
  offsets: number[];
}

export function offsetByName(zone: string): (instant: number) => number {
  const format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
  return (instant) => {
    const text = format.format(instant);
    const match = /GMT(?:([+-])(\d\d):(\d\d))?$/.exec(text);
    if (!match) throw new Error(`offset name in ${text}`);
    if (!match[1]) return 0;
    const size = Number(match[2]) * HOUR + Number(match[3]) * 60_000;
    return match[1] === '-' ? -size : size;
  };
}

/** The zone's offsets from `from` to `to` (epoch ms). */
export function zoneTable(zone: string, from: number, to: number): ZoneTable {
  const offset = offsetByName(zone);
  const changes: number[] = [];
  const offsets = [offset(from)];
  for (let t = from; t < to; t += DAY) {
    const here = offsets[offsets.length - 1];
    if (offset(t + DAY) === here) continue;
    let low = t;
    let high = t + DAY;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offset(middle) === here) low = middle;
      else high = middle;
    }
    changes.push(high);
    offsets.push(offset(high));
  }
  return { zone, changes, offsets };
}

function intervalAt(table: ZoneTable, instant: number): number {
  let low = 0;
  let high = table.changes.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (table.changes[middle] <= instant) low = middle + 1;
    else high = middle;
  }
  return low;
}

export function oracleOffset(table: ZoneTable, instant: number): number {
  return table.offsets[intervalAt(table, instant)];
}

/** The first instant whose wall clock reads `wall` (local ms) or later. */
export function oracleInstant(table: ZoneTable, wall: number): number {
  let i = intervalAt(table, wall - 15 * HOUR);
  for (; i <= table.changes.length; i++) {
    const begin = i === 0 ? -Infinity : table.changes[i - 1];
    const end = i === table.changes.length ? Infinity : table.changes[i];
    const candidate = Math.max(begin, wall - table.offsets[i]);
    if (candidate < end) return candidate;
  }
  throw new Error('no instant');
}

/** Days since 1970-01-01 of a civil date (Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The civil date of a day number (Hinnant's civil_from_days). */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

export function monthLength(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return month === 2 && leap ? 29 : LENGTHS[month - 1];
}

/** ISO weekday (1 = Monday) of a day number: day 0 was a Thursday. */
export function isoWeekday(days: number): number {
  const sunday0 = (((days + 4) % 7) + 7) % 7;
  return sunday0 === 0 ? 7 : sunday0;
}

/** What the oracle reads of a cycle's anchor: the wall-clock fields its starts repeat. */
export interface OracleAnchor {
  month: number;
  day: number;
  weekday: number;
  /** Hours, minutes, seconds and ms of the time of day. */
  time: [number, number, number, number];
}

/** Every start wall time (local ms) of the cycles around the wall time `wall`. */
function startsAround(unit: string, anchor: OracleAnchor, wall: number): number[] {
  const [h, m, s, ms] = anchor.time;
  const timeOfDay = ((h * 60 + m) * 60 + s) * 1000 + ms;
  const today = Math.floor(wall / DAY);
  const { year, month } = civilFromDays(today);
  const walls: number[] = [];
  const at = (y: number, mo: number, d: number) =>
    daysFromCivil(y, mo, Math.min(d, monthLength(y, mo))) * DAY + timeOfDay;
  if (unit === 'day') {
    for (let d = today - 2; d <= today + 2; d++) walls.push(d * DAY + timeOfDay);
  } else if (unit === 'week') {
    for (let d = today - 16; d <= today + 16; d++) {
      if (isoWeekday(d) === anchor.weekday) walls.push(d * DAY + timeOfDay);
    }
  } else if (unit === 'month') {
    for (let k = -2; k <= 2; k++) {
      const index = year * 12 + (month - 1) + k;
      walls.push(at(Math.floor(index / 12), (index % 12) + 1, anchor.day));
    }
  } else {
    for (let y = year - 2; y <= year + 2; y++) walls.push(at(y, anchor.month, anchor.day));
  }
  return walls;
}

/** The cycle `instant` falls in: the last start not after it, and the first after it. */
export function oracleCycle(
  table: ZoneTable,
  unit: string,
  anchor: OracleAnchor,
  instant: number,
): { startMs: number; endMs: number } {
  const wall = instant + oracleOffset(table, instant);
  const starts = startsAround(unit, anchor, wall).map((w) => oracleInstant(table, w));
  let startMs = -Infinity;
  let endMs = Infinity;
  for (const start of starts) {
    if (start <= instant && start > startMs) startMs = start;
    if (start > instant && start < endMs) endMs = start;
  }
  return { startMs, endMs };
}
