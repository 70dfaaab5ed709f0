import type { EngineEntry, FixedFields } from '../../../../../src/stores/redis/engine/entry';
import { packArgv, packEntries, unpackReply } from '../../../../../src/stores/redis/engine/packing';

function entry(
  algorithmIndex: string,
  fixed: FixedFields,
  request?: string[],
  time = '',
): EngineEntry {
  return {
    key: 'k',
    algorithmIndex,
    time,
    fixed,
    requestArgv: request,
    packedArgv: packArgv(fixed, request),
    patienceMs: 1000,
    settle: () => undefined,
    withdraw: () => undefined,
    fail: () => undefined,
  };
}

describe('packEntries', () => {
  const limitA: FixedFields = { argv: ['0', '10', '60000'], limitId: 'a' };
  const limitB: FixedFields = { argv: ['0', '20', '1000'], limitId: 'b' };

  it('writes an entry that repeats the one before it (algorithm, time, arguments) as one empty field', () => {
    const packed = packEntries(
      [
        entry('7', limitA),
        entry('7', limitA),
        entry('7', limitA),
        entry('7', limitB),
        entry('7', limitB, ['2']),
        entry('7', limitB, ['2']),
        entry('1', limitB, ['2']),
        entry('1', limitB, ['2'], '1700000000000000'),
      ],
      new Map(),
    );
    expect(packed.split('\0')).toEqual([
      ...['7', '', '3', '0', '10', '60000'],
      '',
      '',
      ...['7', '', '3', '0', '20', '1000'],
      ...['7', '', '4', '0', '20', '1000', '2'],
      '',
      ...['1', '', '4', '0', '20', '1000', '2'],
      ...['1', '1700000000000000', '4', '0', '20', '1000', '2'],
      '',
    ]);
  });

  it("writes a group's first member in full, with its size, even where it repeats", () => {
    const packed = packEntries(
      [entry('7', limitA), entry('7', limitA), entry('7', limitA)],
      new Map([[1, 2]]),
    );
    expect(packed.split('\0')).toEqual([
      ...['7', '', '3', '0', '10', '60000'],
      ...['7/2', '', '3', '0', '10', '60000'],
      '',
      '',
    ]);
  });
});

describe('unpackReply reads each value', () => {
  /** A reply as the engine packs it: the fields, each entry ended by NUL. */
  const packed = (...parts: string[]) => parts.map((part) => `${part}\u0000`).join('');
  // Not '-2' first: that is a failed entry's mark (below).
  const FIELDS = [
    '0',
    '-0',
    '7',
    '-1',
    '-20',
    '123456789012345',
    '-123456789012345',
    '1234567890123456',
    '9007199254740993',
    '1.5',
    '-0.25',
    '1e3',
    '',
    '-',
    '--5',
    ' 5',
    '+5',
    '5 ',
    'nan',
    'inf',
    '-inf',
    '12a',
  ];

  it.each(FIELDS)('%j, first or last of its entry, as Number does', (field) => {
    const values = unpackReply(
      packed('1700000000', '000000', `${field},1,2,3,4`, `5,6,7,8,${field}`),
      2,
    )!;
    expect(values.slice(2, 10)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(values[0]).toBe(1700000000000000);
    expect(Object.is(values[1], Number(field))).toBe(true);
    expect(Object.is(values[10], Number(field))).toBe(true);
  });

  it.each([
    ['an entry of four values', packed('0', '0', '1,2,3,4')],
    ['an entry without its end', `${packed('0', '0')}1,2,3,4,5`],
    ['a value past the entries', `${packed('0', '0', '1,2,3,4,5')}x`],
    ['no time', '1,2,3,4,5'],
    ['a time of one field', packed('1700000000000000', '1,2,3,4,5')],
  ])('finds no reply of one entry in %s', (_what, reply) => {
    expect(unpackReply(reply, 1)).toBeUndefined();
  });

  it('reads a fifth value holding a comma as Number does (NaN)', () => {
    expect(unpackReply(packed('0', '0', '1,2,3,4,5,6'), 1)).toEqual([0, 1, 2, 3, 4, NaN]);
  });

  it("reads a failed entry's message, and the entries after it", () => {
    expect(unpackReply(packed('0', '9', '-2,ERR bad, very', '1,0,0,0,0'), 2)).toEqual([
      9,
      -2,
      'ERR bad, very',
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
    ]);
  });
});
