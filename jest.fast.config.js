/**
 * `npm run test:fast`: the suites that need no Redis, no browser and no build: unit tests,
 * type tests, the documentation's, and the e2e suites that run on the memory store. A suite
 * is in unless it, or a test helper it imports at any depth, starts a process (redis-server,
 * a Cluster, a Sentinel, a child app, Chromium), so a new suite joins the right loop by
 * what it does, with no list to keep.
 */
const { existsSync, readdirSync, readFileSync } = require('node:fs');
const { dirname, join, relative, resolve } = require('node:path');
const base = require('./jest.config');

const STARTS_A_PROCESS = /['"](node:)?child_process['"]|['"]puppeteer(-core)?['"]/;
/** Reads lib/, which only `npm run build` writes. */
const NEEDS_THE_BUILD = new Set(['test/unit/package-contents.spec.ts']);

const startsAProcess = new Map();
function spawns(file) {
  if (startsAProcess.has(file)) return startsAProcess.get(file);
  startsAProcess.set(file, false); // an import cycle adds nothing
  const source = readFileSync(file, 'utf8');
  const imported = [...source.matchAll(/from '(\.[^']+)'|require\('(\.[^']+)'\)/g)]
    .map((match) => resolve(dirname(file), match[1] ?? match[2]))
    .map((path) => [`${path}.ts`, join(path, 'index.ts'), path].find(existsSync))
    .filter((path) => path && path.startsWith(join(__dirname, 'test')));
  const result = STARTS_A_PROCESS.test(source) || imported.some(spawns);
  startsAProcess.set(file, result);
  return result;
}

function specs(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return specs(path);
    return entry.name.endsWith('.spec.ts') ? [path] : [];
  });
}

const fast = specs(join(__dirname, 'test'))
  .map((path) => relative(__dirname, path))
  .filter((path) => !NEEDS_THE_BUILD.has(path) && !spawns(join(__dirname, path)));

/** @type {import('jest').Config} */
module.exports = { ...base, testMatch: fast.map((path) => `<rootDir>/${path}`) };
