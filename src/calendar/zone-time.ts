/**
 * Wall-clock time in an IANA time zone, from the platform's `Intl` (no time-zone data of our
 * own). A wall time is written as the epoch ms it would be in UTC ("local ms"): the calendar
 * arithmetic then works on plain numbers and `Date.UTC`, and only the step between a wall
 * time and an instant asks the zone.
 */

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** Whether the platform knows `timeZone` (an IANA name such as 'Europe/Paris', or 'UTC'). */
export function isTimeZone(timeZone: unknown): timeZone is string {
  if (typeof timeZone !== 'string' || timeZone === '') return false;
  try {
    formatterOf(timeZone);
    return true;
  } catch {
    return false;
  }
}

// `format` is several times cheaper than `formatToParts`: its en-US text, `M/D/YYYY, HH:MM:SS`,
// is read back by position.
const WALL_TEXT = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/** The wall clock in `timeZone` at `instant` (epoch ms), as local ms. */
export function wallTimeAt(instant: number, timeZone: string): number {
  const text = formatterOf(timeZone).format(instant);
  const fields = WALL_TEXT.exec(text);
  if (!fields) throw new Error(`Unexpected time from Intl for ${timeZone}: ${text}`);
  const [, month, day, year, hour, minute, second] = fields;
  const ms = ((instant % 1000) + 1000) % 1000;
  return Date.UTC(+year, +month - 1, +day, +hour, +minute, +second) + ms;
}

/** The zone's offset from UTC at `instant`, in ms (wall time minus instant). */
export function offsetAt(instant: number, timeZone: string): number {
  return wallTimeAt(instant, timeZone) - instant;
}

/**
 * The instant a wall time names in `timeZone`: where the clock jumps over it (a spring-forward
 * gap), the first instant after the gap (the jump itself); where it reads it twice (a
 * fall-back), the earlier one. The offsets a day before and a day after are the only two the
 * wall time can have (no zone changes its offset twice within two days).
 */
export function instantOfWallTime(wall: number, timeZone: string): number {
  const before = offsetAt(wall - DAY_MS, timeZone);
  const after = offsetAt(wall + DAY_MS, timeZone);
  if (before === after) return wall - before;
  // The earlier reading first: before the change the offset is `before`.
  const candidates = [wall - before, wall - after].sort((a, b) => a - b);
  for (const candidate of candidates) {
    if (offsetAt(candidate, timeZone) === wall - candidate) return candidate;
  }
  // A gap: the change lies in (wall - after, wall - before]; find its first ms.
  let low = wall - after;
  let high = wall - before;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(middle, timeZone) === before) low = middle;
    else high = middle;
  }
  return high;
}
