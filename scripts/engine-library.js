// Composes the engine's Redis Functions library from src/stores/redis/engine/library.lua
// and the .lua files it includes, and writes it to src/stores/redis/engine/engine.library.lua, the
// golden file the store loads (`npm run engine:library`; a unit test fails while the file
// differs from what this composes). As bullmq does: a line `--- @include "<path>"` (relative to
// the file that holds it) is replaced by that file, itself composed, the first time it is
// included, and by nothing after. Lines that are only a comment, and blank lines, are
// dropped. The library's name is `nestjs_limiter_` and the first 12 hex digits of the SHA-1
// of the rest: a change of the engine is a new library, which never replaces another's.
const { createHash } = require('node:crypto');
const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, resolve } = require('node:path');

const ENGINE = join(__dirname, '..', 'src', 'stores', 'redis', 'engine');
const ROOT = join(ENGINE, 'library.lua');
const GOLDEN = join(ENGINE, 'engine.library.lua');
const INCLUDE = /^[ \t]*--- @include "([^"]+)"[ \t]*$/gm;

function included(file, seen) {
  return readFileSync(file, 'utf8').replace(INCLUDE, (_line, path) => {
    const target = resolve(dirname(file), path);
    if (seen.has(target)) return '';
    seen.add(target);
    return included(target, seen).trimEnd();
  });
}

/** The library's text, as engine.library.lua must hold it. */
function composeEngineLibrary(root = ROOT) {
  const body = included(root, new Set([resolve(root)]))
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*--/.test(line))
    .join('\n');
  const name = `nestjs_limiter_${createHash('sha1').update(body).digest('hex').slice(0, 12)}`;
  return `#!lua name=${name}\n${body.replaceAll('__LIBRARY__', name)}\n`;
}

module.exports = { composeEngineLibrary, GOLDEN };

if (require.main === module) {
  writeFileSync(GOLDEN, composeEngineLibrary());
  console.log(`wrote ${GOLDEN}`);
}
