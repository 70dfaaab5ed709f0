import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import {
  BUILT_IN_ALGORITHMS,
  LIBRARY_ENTRIES,
} from '../../../../../src/algorithms/built-in-algorithms';
import { composeEngineLibrary } from '../../../../../src/stores/redis/engine/compose-library';
import { BUILT_IN_ENGINE, ENGINE_LIBRARY } from '../../../../../src/stores/redis/engine/script';

const SRC = join(__dirname, '..', '..', '..', '..', '..', 'src');

/** An algorithm's entries file: its folder, its blocks and its add_entries spec. */
interface EntriesFile {
  folder: string;
  blocks: string;
  spec: Record<string, string>;
}

/** Each algorithm's entries file, in the order library.lua includes them. */
function entriesFiles(): EntriesFile[] {
  const library = readFileSync(join(SRC, 'stores/redis/engine/library.lua'), 'utf8');
  return [...library.matchAll(/^--- @include "[^"]*\/([\w-]+)\.entries\.lua"$/gm)].map(
    ([, folder]) => {
      const text = readFileSync(join(SRC, 'algorithms', folder, `${folder}.entries.lua`), 'utf8');
      const [, blocks, fields] = /add_entries\((\w+), \{([^}]*)\}\)/s.exec(text)!;
      const spec = Object.fromEntries(
        [...fields.matchAll(/(\w+) = (\w+)/g)].map(([, field, value]) => [field, value]),
      );
      return { folder, blocks, spec };
    },
  );
}

/** The .lua files under `dir`, as paths from src/. */
function luaFiles(dir: string): string[] {
  const src = join(__dirname, '..', '..', '..', '..', '..', 'src');
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.lua'))
    .map((entry) => relative(src, join(entry.parentPath, entry.name)))
    .sort();
}

/** The engine library is composed of real .lua files, each piece of it written once. */
describe('the engine library', () => {
  const lua = ENGINE_LIBRARY;
  const src = join(__dirname, '..', '..', '..', '..', '..', 'src');
  const withoutComments = (file: string) =>
    readFileSync(join(src, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
      .join('\n')
      .trim();

  it('is the generated file the composer writes from the .lua files and the registry: run npm run engine:library after a change', () => {
    expect(composeEngineLibrary()).toBe(lua);
  });

  it('carries its version in its name and in its functions', () => {
    const name = /^#!lua name=(nestjs_limiter_[0-9a-f]{12})\n/.exec(lua)?.[1];
    expect(name).toBeDefined();
    expect(BUILT_IN_ENGINE.libraryName).toBe(name);
    expect(BUILT_IN_ENGINE.functionName).toBe(name);
    expect(BUILT_IN_ENGINE.forCrossSlot().functionName).toBe(`${name}_across_slots`);
    expect(lua).toContain(`redis.register_function('${name}', engine)`);
    expect(lua).toContain(`function_name = '${name}_across_slots'`);
  });

  it('defines each local function once', () => {
    const names = [...lua.matchAll(/^\s*local function (\w+)/gm)].map((match) => match[1]);
    const repeated = names.filter((name, i) => names.indexOf(name) !== i);
    expect(repeated).toEqual([]);
    expect(names.length).toBeGreaterThan(30);
  });

  // The buckets keep the options (and a decorator's timeout) they were written under and cut a
  // state written under others, and a denial's block is cut to the current block (state under
  // older options): 45 lines.
  it('stays under 1,040 lines for the seven algorithms, and 1,110 with the coalescer, so it can be read as one piece', () => {
    const coalesced = /^local function (\w+_coalesced|coalesced_of|decide_in_cell)\(.*?^end$/gms;
    expect(lua.replace(coalesced, '').split('\n').length).toBeLessThan(1040);
    expect(lua.split('\n').length).toBeLessThan(1110);
  });

  it('rolls the approximate window in one function, which the acquire calls (the charge and the coalesced acquire run the acquire)', () => {
    // The acquire also takes the texts its write reuses.
    const call = /local index, curr, prev(, \w+)* = approximate_roll\(key, now, window\)/g;
    expect(lua.split('local function approximate_roll(').length - 1).toBe(1);
    expect(lua.match(call)).toHaveLength(1);
  });

  it('coalesces the string states and the sliding log with the one generic coalescer: no algorithm has a coalesced form of its own', () => {
    const forms = luaFiles(join(src, 'algorithms')).filter((file) =>
      file.endsWith('.coalesced.lua'),
    );
    expect(forms).toEqual([]);
    const coalesced = entriesFiles().map(({ folder, spec }) => [folder, spec.coalesced]);
    expect(coalesced).toEqual([
      ['rate-limit', 'true'],
      ['count-limit', 'true'],
      ['sliding-window-limit', 'true'],
      ['concurrency-limit', undefined],
      ['leaky-bucket-limit', 'true'],
      ['approximate-sliding-window-limit', 'true'],
      ['quota-limit', undefined],
    ]);
  });

  it('makes each algorithm file one whole local function, and no include under algorithms/ leaves algorithms/', () => {
    const algorithms = join(src, 'algorithms');
    // An entries file is the table's part of its algorithm, not a function (state-ops/entries.lua).
    const files = luaFiles(algorithms).filter(
      (file) => !file.startsWith('algorithms/state-ops/') && !file.endsWith('.entries.lua'),
    );
    expect(files.length).toBeGreaterThanOrEqual(17);
    const helpers = ['approximate-sliding-window-limit.roll.lua'];
    for (const file of files) {
      const text = readFileSync(join(src, file), 'utf8');
      const functions = text.match(/^local function \w+\(/gm) ?? [];
      if (!helpers.some((helper) => file.endsWith(helper))) {
        expect([file, functions.length]).toEqual([file, 1]);
      }
      // Nothing but the function (and its includes and comments) at the top level.
      const code = text.split('\n').filter((line) => line.trim() !== '' && !/^\s*--/.test(line));
      const top = code.filter((line) => /^\S/.test(line));
      expect([
        file,
        top.every((line) => /^(local function |local [\w, ]+( =|$)|end$)/.test(line)),
      ]).toEqual([file, true]);
    }
    const leaving = luaFiles(algorithms).flatMap((file) =>
      [...readFileSync(join(src, file), 'utf8').matchAll(/^--- @include "([^"]+)"/gm)]
        .map((include) => relative(algorithms, resolve(dirname(join(src, file)), include[1])))
        .filter((target) => target.startsWith('..'))
        .map((target) => `${file} -> ${target}`),
    );
    expect(leaving).toEqual([]);
  });

  it.each([
    'algorithms/rate-limit/rate-limit.lua',
    'algorithms/count-limit/count-limit.lua',
    'algorithms/sliding-window-limit/sliding-window-limit.lua',
    'algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.lua',
    'algorithms/approximate-sliding-window-limit/approximate-sliding-window-limit.roll.lua',
    'algorithms/leaky-bucket-limit/leaky-bucket-limit.lua',
    'algorithms/concurrency-limit/concurrency-limit.lua',
    'algorithms/count-limit/count-limit.refund.lua',
    'algorithms/state-ops/coalesced.lua',
    'algorithms/state-ops/string-block.lua',
    'algorithms/state-ops/zset-block.lua',
    'algorithms/state-ops/prelude.lua',
  ])('holds %s once, though several files include it', (file) => {
    expect(lua.split(withoutComments(file)).length - 1).toBe(1);
  });

  it('finds every built-in algorithm and operation in its table, in the order of the registry', () => {
    BUILT_IN_ALGORITHMS.forEach((algorithm, at) => {
      expect(BUILT_IN_ENGINE.indexOf(algorithm)).toBe(String(at + 1));
      expect(LIBRARY_ENTRIES[at].algorithm).toBe(algorithm);
    });
    // The entries each file adds (add_entries, state-ops/entries.lua), in library.lua's order.
    const fromLua = entriesFiles().flatMap(({ folder, spec }) =>
      ['acquire', 'peek', 'reset', 'block', 'refund', 'charge', 'coalesced']
        .filter((role) => ['acquire', 'peek', 'reset', 'block'].includes(role) || spec[role])
        .map((role) => `${folder} ${role}`),
    );
    const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    expect(fromLua).toEqual(LIBRARY_ENTRIES.map((entry) => `${kebab(entry.name)} ${entry.role}`));
    // The token bucket's charge is its acquire's function without a timeout, the counter's and
    // the approximate window's their acquire's without the limit; the counter's acquire tries
    // its two-command path first; the concurrency limit keeps its block.
    const [rate, count, , slots, , approximate] = entriesFiles();
    expect(rate.spec).toMatchObject({ acquire: 'rate_limit', charge: 'rate_limit' });
    expect(count.spec).toMatchObject({ acquire: 'count_limit', fast: 'count_limit_incr' });
    expect([count.spec.charge, approximate.spec.charge]).toEqual([
      'without_limit',
      'without_limit',
    ]);
    expect(slots).toMatchObject({ blocks: 'zset_block', spec: { keeps_block: 'true' } });
  });

  it('runs as a script where Redis has no Functions: the same text, without its name and registrations', () => {
    const script = BUILT_IN_ENGINE.lua;
    const body = lua.slice(lua.indexOf('\n') + 1, lua.indexOf('redis.register_function'));
    expect(script.startsWith(body)).toBe(true);
    expect(script).not.toContain('register_function');
    expect(BUILT_IN_ENGINE.forCrossSlot().lua).toBe(`#!lua flags=allow-cross-slot-keys\n${script}`);
  });
});
