import fc from 'fast-check';
import { cycleAt } from '../../../src/calendar/calendar-cycle';
import { cycleRuleOf } from '../../../src/calendar/cycle-rule';
import {
  civilFromDays,
  daysFromCivil,
  isoWeekday,
  OracleAnchor,
  oracleCycle,
  oracleOffset,
  zoneTable,
  ZoneTable,
} from '../../helpers/calendar-oracle';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const FROM = Date.UTC(2014, 0, 1);
const TO = Date.UTC(2037, 0, 1);
const EARLIEST = Date.UTC(2016, 0, 1);
const LATEST = Date.UTC(2035, 0, 1);

// Whole-hour DST (New York, London, Berlin, Sydney, São Paulo's past, Santiago's at
// midnight), 30-minute DST (Lord Howe), 30- and 45-minute offsets (Kolkata, Kathmandu, Eucla,
// St John's, Chatham), and none.
const ZONES = [
  'UTC',
  'America/New_York',
  'Europe/London',
  'Europe/Berlin',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Australia/Eucla',
  'America/St_Johns',
  'Pacific/Chatham',
  'America/Santiago',
  'America/Sao_Paulo',
];

const tables = new Map<string, ZoneTable>(ZONES.map((zone) => [zone, zoneTable(zone, FROM, TO)]));

interface Case {
  unit: 'day' | 'week' | 'month' | 'year';
  zone: string;
  /** The anchor option as a user writes it. */
  anchor: number | string | undefined;
  weekStart: number;
  instant: number;
}

const pad = (value: number, size = 2) => String(value).padStart(size, '0');

/** What the oracle reads of the case's anchor, parsed its own way. */
function oracleAnchor(table: ZoneTable, { anchor, weekStart }: Case): OracleAnchor {
  if (anchor === undefined) return { month: 1, day: 1, weekday: weekStart, time: [0, 0, 0, 0] };
  if (typeof anchor === 'number') return { month: 1, day: anchor, weekday: 1, time: [0, 0, 0, 0] };
  const [date, rest = '00:00'] = anchor.split('T');
  const [year, month, day] = date.split('-').map(Number);
  const offsetAt = rest.search(/Z|[+-]/);
  const clock = offsetAt < 0 ? rest : rest.slice(0, offsetAt);
  const [h, m, s = 0] = clock.split(':').map(Number);
  let wall = daysFromCivil(year, month, day) * DAY + ((h * 60 + m) * 60 + s) * 1000;
  if (offsetAt >= 0) {
    const written = rest.slice(offsetAt);
    const sign = written[0] === '-' ? -1 : 1;
    const offset =
      written === 'Z'
        ? 0
        : sign * (Number(written.slice(1, 3)) * HOUR + Number(written.slice(4)) * 60_000);
    const instant = wall - offset;
    wall = instant + oracleOffset(table, instant);
  }
  const days = Math.floor(wall / DAY);
  const civil = civilFromDays(days);
  const inDay = wall - days * DAY;
  const time: OracleAnchor['time'] = [
    Math.floor(inDay / HOUR),
    Math.floor(inDay / 60_000) % 60,
    Math.floor(inDay / 1000) % 60,
    inDay % 1000,
  ];
  return { month: civil.month, day: civil.day, weekday: isoWeekday(days), time };
}

// Times of day near the changes (most happen between midnight and 03:00) and at odd minutes.
const hour = fc.oneof(fc.constantFrom(0, 1, 2, 3, 23), fc.integer({ min: 0, max: 23 }));
const minute = fc.oneof(fc.constantFrom(0, 15, 30, 45, 59), fc.integer({ min: 0, max: 59 }));
const isoAnchor = fc
  .record({
    year: fc.integer({ min: 2015, max: 2034 }),
    month: fc.integer({ min: 1, max: 12 }),
    day: fc.oneof(fc.constantFrom(1, 28, 29, 30, 31), fc.integer({ min: 1, max: 31 })),
    hour,
    minute,
    second: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 59 })),
    offset: fc.constantFrom('', '', '', 'Z', '+05:30', '-03:00', '+13:45', '-09:30'),
  })
  .filter(({ year, month, day }) => day <= new Date(Date.UTC(year, month, 0)).getUTCDate())
  .map(({ year, month, day, hour: h, minute: m, second, offset }) => {
    const seconds = second < 0 ? '' : `:${pad(second)}`;
    return `${year}-${pad(month)}-${pad(day)}T${pad(h)}:${pad(m)}${seconds}${offset}`;
  });

const unitAndAnchor = fc.oneof(
  fc.record({
    unit: fc.constantFrom('day', 'week', 'month', 'year'),
    anchor: fc.constant(undefined),
  }),
  fc.record({
    unit: fc.constant('month'),
    anchor: fc.oneof(fc.constantFrom(28, 29, 30, 31), fc.integer({ min: 1, max: 31 })),
  }),
  fc.record({ unit: fc.constantFrom('day', 'week', 'month', 'year'), anchor: isoAnchor }),
  fc.record({ unit: fc.constantFrom('day', 'week', 'month', 'year'), anchor: isoAnchor }),
) as fc.Arbitrary<Pick<Case, 'unit' | 'anchor'>>;

const within = (instant: number) => Math.min(LATEST, Math.max(EARLIEST, instant));

/** An instant for the case: uniform, near a change of the zone, near a month's end, or at a boundary. */
const instantFor = (zone: string) => {
  const { changes } = tables.get(zone)!;
  const uniform = fc.integer({ min: EARLIEST, max: LATEST });
  const nearChange = fc
    .tuple(
      fc.integer({ min: 0, max: Math.max(0, changes.length - 1) }),
      fc.integer({ min: -3 * HOUR, max: 3 * HOUR }),
    )
    .map(([i, shift]) => within((changes[i] ?? EARLIEST) + shift));
  const nearMonthEnd = fc
    .tuple(
      fc.integer({ min: 2016 * 12, max: 2034 * 12 }),
      fc.integer({ min: -36 * HOUR, max: 36 * HOUR }),
    )
    .map(([index, shift]) => within(Date.UTC(Math.floor(index / 12), (index % 12) + 1, 1) + shift));
  return fc.oneof(uniform, nearChange, nearChange, nearMonthEnd);
};

const cases: fc.Arbitrary<Case & { edge: number }> = fc
  .tuple(unitAndAnchor, fc.constantFrom(...ZONES), fc.integer({ min: 1, max: 7 }))
  .chain(([{ unit, anchor }, zone, weekStart]) =>
    fc.record({
      unit: fc.constant(unit),
      anchor: fc.constant(anchor),
      zone: fc.constant(zone),
      weekStart: fc.constant(weekStart),
      instant: instantFor(zone),
      // Half the cases move to a boundary of the oracle's cycle: 1 ms before, at, or after it.
      edge: fc.oneof(fc.constant(NaN), fc.constantFrom(-1, 0, 1)),
    }),
  );

describe('calendar cycles against an independent calendar', () => {
  it('agree on the start and end of the cycle of 100,000 random instants', () => {
    let atBoundary = 0;
    fc.assert(
      fc.property(cases, (drawn) => {
        const table = tables.get(drawn.zone)!;
        const anchor = oracleAnchor(table, drawn);
        let { instant } = drawn;
        if (!Number.isNaN(drawn.edge)) {
          instant = oracleCycle(table, drawn.unit, anchor, instant).startMs + drawn.edge;
          atBoundary++;
        }
        const rule = cycleRuleOf(
          {
            cycle: drawn.unit,
            timeZone: drawn.zone,
            anchor: drawn.anchor,
            weekStart: drawn.weekStart,
          },
          'test',
        );
        const found = cycleAt(rule, instant);
        const expected = oracleCycle(table, drawn.unit, anchor, instant);
        // expect() only on a difference: it costs more than the computation.
        if (found.startMs !== expected.startMs || found.endMs !== expected.endMs) {
          expect(found).toEqual(expected);
        }
      }),
      { numRuns: 100_000 },
    );
    expect(atBoundary).toBeGreaterThan(20_000);
  }, 600_000);
});
