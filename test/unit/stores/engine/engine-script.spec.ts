import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadLua } from '../../../../src/algorithms/lua-source';
import { BUILT_IN_ENGINE } from '../../../../src/stores/engine/engine-script';

/** The engine script is composed of real .lua files, each piece of it written once. */
describe('the built-in engine script', () => {
  const lua = BUILT_IN_ENGINE.lua;
  const algorithms = join(__dirname, '..', '..', '..', '..', 'src', 'algorithms');

  it('defines each local function once', () => {
    const names = [...lua.matchAll(/^\s*local function (\w+)/gm)].map((match) => match[1]);
    const repeated = names.filter((name, i) => names.indexOf(name) !== i);
    expect(repeated).toEqual([]);
    expect(names.length).toBeGreaterThan(30);
  });

  it('stays under 800 lines for the six algorithms, and 1,100 with the coalesced forms of five, so it can be read as one piece', () => {
    const coalesced = /^local function (\w+_coalesced|coalesced_acquire)\(.*?^end$/gms;
    expect(lua.replace(coalesced, '').split('\n').length).toBeLessThan(800);
    expect(lua.split('\n').length).toBeLessThan(1100);
  });

  it.each([
    'rate-limit/rate-limit.lua',
    'count-limit/count-limit.lua',
    'sliding-window-limit/sliding-window-limit.lua',
    'approximate-sliding-window-limit/approximate-sliding-window-limit.lua',
    'leaky-bucket-limit/leaky-bucket-limit.lua',
    'concurrency-limit/concurrency-limit.lua',
    'count-limit/count-limit.refund.lua',
    'state-ops/string-block.lua',
    'state-ops/zset-block.lua',
  ])('holds %s once: peek, block, refund and charge call it', (file) => {
    // The engine drops the lines that are only a comment or blank; the rest stands as written.
    const path = join(algorithms, file);
    const source = loadLua(dirname(path), path.slice(dirname(path).length + 1))
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
      .join('\n')
      .trim();
    expect(lua.split(source).length - 1).toBe(1);
  });

  it('defines the roll of the approximate window once, a function the acquire, the charge and the coalesced acquire call', () => {
    const folder = join(algorithms, 'approximate-sliding-window-limit');
    // The roll's own line: the previous window's count moves back a window.
    const roll = 'return index, 0, c';
    const call = 'local index, curr, prev = approximate_roll(key, now, window)';
    const read = (suffix: string) =>
      readFileSync(join(folder, `approximate-sliding-window-limit${suffix}.lua`), 'utf8');
    expect(['', '.charge', '.roll'].map((suffix) => read(suffix).split(roll).length - 1)).toEqual([
      0, 0, 1,
    ]);
    expect(
      ['', '.charge', '.coalesced'].map((suffix) => read(suffix).split(call).length - 1),
    ).toEqual([1, 1, 1]);
    expect(lua.split(roll).length - 1).toBe(1);
    expect(lua.split('local function approximate_roll(').length - 1).toBe(1);
    expect(lua.split(call).length - 1).toBe(3);
  });

  it('runs each algorithm and operation through one entry', () => {
    const table = /^local algorithms = \{\n([^}]*)\n\}$/m.exec(lua)?.[1] ?? '';
    const entries = table
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    expect(entries.length).toBe(BUILT_IN_ENGINE.algorithms.length);
    expect(entries.slice(0, 6)).toEqual([
      'limiterRateLimitWithBlock',
      'limiterRateLimitPeek',
      'reset_key',
      'block_string_block_key',
      'limiterRateLimitRefundWithBlock',
      'limiterRateLimitChargeWithBlock',
    ]);
  });
});
