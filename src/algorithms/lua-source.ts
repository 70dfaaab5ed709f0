/**
 * A piece of Lua an algorithm of the app's own needs besides the engine library's functions:
 * a `local function` or a `local` table of them, found by its name, defined once.
 */
export interface LuaDefinition {
  readonly name: string;
  readonly source: string;
}

/** What names an algorithm in the engine library's table. */
interface LuaNamed {
  readonly commandName: string;
  readonly luaName?: string;
}

/** The name of the algorithm's function in the engine library (engine/library.lua). */
export function luaNameOf(algorithm: LuaNamed): string {
  return algorithm.luaName ?? algorithm.commandName;
}
