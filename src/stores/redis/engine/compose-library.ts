import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { LIBRARY_ENTRIES } from '../../../algorithms/built-in-algorithms';
import { LibraryEntry } from '../../../algorithms/library-entries';

/**
 * Composes the engine's Redis Functions library (`npm run engine:library`, which writes it to
 * library.generated.lua; a unit test fails while that file differs from what this composes).
 * The source is library.lua; its line `--- @algorithms` becomes the algorithms' files and the
 * table an entry's index names, one line per entry of LIBRARY_ENTRIES, each written from what
 * the registry's definitions say (state type, refund, charge, coalescing). As bullmq does, a
 * line `--- @include "<path>"` (relative to the file that holds it) is replaced by that file,
 * itself composed, the first time it is included, and by nothing after. Lines that are only a
 * comment, and blank lines, are dropped. The library's name is `nestjs_limiter_` and the
 * first 12 hex digits of the SHA-1 of the rest: a change of the engine is a new library.
 */
const SOURCE = join(__dirname, 'library.lua');
const ALGORITHMS = join(__dirname, '..', '..', '..', 'algorithms');
const INCLUDE = /^[ \t]*--- @include "([^"]+)"[ \t]*$/gm;

function included(file: string, seen: Set<string>, text = readFileSync(file, 'utf8')): string {
  return text.replace(INCLUDE, (_line, path: string) => {
    const target = resolve(dirname(file), path);
    if (seen.has(target)) return '';
    seen.add(target);
    return included(target, seen).trimEnd();
  });
}

/** An algorithm's Lua file: `<name>.lua`, or `<name><suffix>.lua` (`.refund`, `.incr`). */
function luaFile(name: string, suffix = ''): string {
  const folder = name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return join(ALGORITHMS, folder, `${folder}${suffix}.lua`);
}

/** The one `local function` an algorithm's file is (what it includes is other files'). */
function functionOf(file: string): string {
  const names = [...readFileSync(file, 'utf8').matchAll(/^local function (\w+)\(/gm)];
  if (names.length !== 1) throw new Error(`${file} is not one local function`);
  return names[0][1];
}

/** The Lua of one entry of the table, and the files it needs. */
function entryLua(entry: LibraryEntry, files: Set<string>): string {
  const blocks = entry.stateType === 'string' ? 'string_block' : 'zset_block';
  const own = (suffix = '') => {
    const file = luaFile(entry.name, suffix);
    files.add(file);
    return functionOf(file);
  };
  const optional = (suffix: string) =>
    existsSync(luaFile(entry.name, suffix)) ? own(suffix) : undefined;
  const decide = own();
  const acquire = entry.keepsBlock ? decide : `blockable_acquire(${decide}, ${blocks})`;
  switch (entry.role) {
    case 'acquire': {
      // The counter's usual decision in two commands, tried before the long way.
      const fast = entry.keepsBlock ? undefined : optional('.incr');
      return fast ? `blockable_acquire(${decide}, ${blocks}, ${fast})` : acquire;
    }
    case 'peek':
      return `peek_of(${acquire}, ${blocks})`;
    case 'reset':
      return 'reset_state';
    case 'block':
      // A key that keeps its block itself keeps no levels: a block is written over any other.
      return entry.keepsBlock ? `block_of(${blocks}, true)` : `block_of(${blocks})`;
    case 'refund':
    case 'charge':
      return `adjust_of(${entry.file ? own(`.${entry.file}`) : decide}, ${blocks})`;
    case 'coalesced': {
      // A sliding log keeps its own coalesced form; a string state runs the acquire n times.
      const all = optional('.coalesced');
      return all
        ? `coalesced_of(${decide}, ${blocks}, ${all})`
        : `coalesced_of(${decide}, ${blocks})`;
    }
  }
}

/** The algorithms' part of the library: their files, then the table. */
function algorithmsLua(): string {
  const files = new Set<string>();
  const table = LIBRARY_ENTRIES.map((entry) => `  ${entryLua(entry, files)},`);
  const includes = [...files].map((file) => `--- @include "${relative(__dirname, file)}"`);
  return [...includes, 'local algorithms = {', ...table, '}'].join('\n');
}

/** The library's text, as library.generated.lua must hold it. */
export function composeEngineLibrary(): string {
  const source = readFileSync(SOURCE, 'utf8').replace(/^--- @algorithms$/m, () => algorithmsLua());
  const body = included(SOURCE, new Set([SOURCE]), source)
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
    .join('\n');
  const name = `nestjs_limiter_${createHash('sha1').update(body).digest('hex').slice(0, 12)}`;
  return `#!lua name=${name}\n${body.replaceAll('__LIBRARY__', name)}\n`;
}
