import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads an algorithm's Lua once at import: the body of `function(key, now, argv)`, which the
 * store's engine script composes with every other algorithm's (stores/engine).
 */
export function loadLua(folder: string, fileName: string): string {
  return readFileSync(join(folder, fileName), 'utf8');
}
