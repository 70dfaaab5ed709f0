import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A line `--- @include <file>`: that file of the same folder, in its place. */
const INCLUDE = /^--- @include (\S+)[ \t]*$/gm;

/**
 * Reads an algorithm's Lua once at import: the body of `function(key, now, argv)`, which the
 * store's engine script composes with every other algorithm's (stores/engine). Lines shared
 * by several bodies of a folder (an acquire and its charge) are written once and included.
 */
export function loadLua(folder: string, fileName: string): string {
  const lua = readFileSync(join(folder, fileName), 'utf8');
  return lua.replace(INCLUDE, (_line, included: string) => loadLua(folder, included).trimEnd());
}

/**
 * A piece of the engine script defined once, whatever number of algorithms use it: a
 * `local function` or a `local` table of them, found by its name.
 */
export interface LuaDefinition {
  readonly name: string;
  readonly source: string;
}

/** A shared `.lua` file (a helper every algorithm of a state type calls), defining `name`. */
export function luaInclude(folder: string, fileName: string, name: string): LuaDefinition {
  return { name, source: loadLua(folder, fileName) };
}

/** What the engine must define for an algorithm written as a body only, or as a call of others. */
interface LuaComposed {
  readonly commandName: string;
  readonly lua: string;
  /** Its Lua function's name in the engine, when not its command's. */
  readonly luaName?: string;
  /** What its body calls, in order of definition; absent for a body that calls nothing. */
  readonly luaIncludes?: readonly LuaDefinition[];
}

/** The name of the algorithm's function in the engine script. */
export function luaNameOf(algorithm: LuaComposed): string {
  return algorithm.luaName ?? algorithm.commandName;
}

/**
 * Everything the engine defines for `algorithm`, its own function last: an operation calls
 * the acquire's function instead of holding a copy of its Lua.
 */
export function luaDefinitionsOf(algorithm: LuaComposed): LuaDefinition[] {
  const name = luaNameOf(algorithm);
  const body = algorithm.lua.trim();
  // A call of other functions stays one line: `local function f(key, now, argv) return g(…) end`.
  const source = body.includes('\n')
    ? `local function ${name}(key, now, argv)\n${body}\nend\n`
    : `local function ${name}(key, now, argv) ${body} end\n`;
  const own = { name, source };
  return [...(algorithm.luaIncludes ?? []), own];
}
