/* eslint-disable @typescript-eslint/no-require-imports */
/* global require, __dirname, process */
// Lets a plain `node` child process run the TypeScript sources (`node -r register-ts.js app.ts`):
// each .ts file is transpiled on load with the repository's compiler options, no type check.
// A suite starts many children that load the same sources: each output is kept on disk by a
// hash of the source and the compiler's settings, so only the first child transpiles, and a
// child that finds every file there never loads the compiler.
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..', '..');
const configPath = join(root, 'tsconfig.json');
const cacheDir = join(root, 'node_modules', '.cache', 'child-app-ts');
const settings =
  readFileSync(configPath, 'utf8') +
  readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8');

let compilerOptions;
function transpile(source, filename) {
  const ts = require('typescript');
  if (!compilerOptions) {
    const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
    compilerOptions = {
      ...ts.convertCompilerOptionsFromJson(config.compilerOptions, root).options,
      sourceMap: false,
      inlineSourceMap: true,
      declaration: false,
    };
  }
  return ts.transpileModule(source, { compilerOptions, fileName: filename }).outputText;
}

function cached(source, filename) {
  const key = createHash('sha1').update(settings).update(filename).update(source).digest('hex');
  const path = join(cacheDir, `${key}.js`);
  try {
    return readFileSync(path, 'utf8');
  } catch {
    const output = transpile(source, filename);
    mkdirSync(cacheDir, { recursive: true });
    // Written aside, then renamed: a child starting beside this one never reads half a file.
    const aside = `${path}.${process.pid}`;
    writeFileSync(aside, output);
    renameSync(aside, path);
    return output;
  }
}

require.extensions['.ts'] = (module, filename) => {
  module._compile(cached(readFileSync(filename, 'utf8'), filename), filename);
};
