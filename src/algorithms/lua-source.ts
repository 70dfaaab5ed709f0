import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Reads an algorithm's script once at import. Every script starts with the same prelude,
 * kept in one file so the time source and number formatting are written once.
 */
const prelude = readFileSync(join(__dirname, 'prelude.lua'), 'utf8');

export function loadLua(folder: string, fileName: string): string {
  return prelude + '\n' + readFileSync(join(folder, fileName), 'utf8');
}
