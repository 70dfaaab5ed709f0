import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * Composes the engine's Redis Functions library (`npm run engine:library`, which writes it to
 * library.generated.lua; a unit test fails while that file differs from what this composes).
 * The source is library.lua; every Lua line is a .lua file's (the algorithms' tables are their
 * entries files', state-ops/entries.lua), none is written here. As bullmq does, a line `--- @include "<path>"` (relative to the file that holds it) is replaced by that file,
 * itself composed, the first time it is included, and by nothing after. Lines that are only a
 * comment, and blank lines, are dropped. The library's name is `nestjs_limiter_` and the
 * first 12 hex digits of the SHA-1 of the rest: a change of the engine is a new library.
 */
const SOURCE = join(__dirname, 'library.lua');
const INCLUDE = /^[ \t]*--- @include "([^"]+)"[ \t]*$/gm;

function included(file: string, seen: Set<string>, text = readFileSync(file, 'utf8')): string {
  return text.replace(INCLUDE, (_line, path: string) => {
    const target = resolve(dirname(file), path);
    if (seen.has(target)) return '';
    seen.add(target);
    return included(target, seen).trimEnd();
  });
}

/** The library's text, as library.generated.lua must hold it. */
export function composeEngineLibrary(): string {
  const body = included(SOURCE, new Set([SOURCE]))
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
    .join('\n');
  const name = `nestjs_limiter_${createHash('sha1').update(body).digest('hex').slice(0, 12)}`;
  return `#!lua name=${name}\n${body.replaceAll('__LIBRARY__', name)}\n`;
}
