/**
 * A piece of Lua an algorithm of the app's own needs besides the engine library's functions:
 * a `local function` or a `local` table of them, found by its name, defined once.
 */
export interface LuaDefinition {
  readonly name: string;
  readonly source: string;
}
