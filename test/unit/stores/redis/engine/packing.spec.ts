import type { EngineEntry, FixedFields } from '../../../../../src/stores/redis/engine/entry';
import { numberIn, packArgv, packEntries } from '../../../../../src/stores/redis/engine/packing';

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

describe('numberIn', () => {
  it.each([
    '0',
    '-0',
    '7',
    '-1',
    '-2',
    '123456789012345',
    '-123456789012345',
    '1234567890123456',
    '9007199254740993',
    '1.5',
    '-0.25',
    '1e3',
    '',
    '-',
    ' 5',
    '+5',
    '5 ',
    'nan',
    'inf',
    '-inf',
    '12a',
  ])('reads %j as Number does', (field) => {
    const text = `x,${field},y`;
    expect(Object.is(numberIn(text, 2, 2 + field.length), Number(field))).toBe(true);
  });
});
