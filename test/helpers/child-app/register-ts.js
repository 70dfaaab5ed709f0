/* eslint-disable @typescript-eslint/no-require-imports */
/* global require, __dirname */
// Lets a plain `node` child process run the TypeScript sources (`node -r register-ts.js app.ts`):
// each .ts file is transpiled on load with the repository's compiler options, no type check.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const ts = require('typescript');

const configPath = join(__dirname, '..', '..', '..', 'tsconfig.json');
const { config } = ts.readConfigFile(configPath, ts.sys.readFile);
const compilerOptions = {
  ...ts.convertCompilerOptionsFromJson(config.compilerOptions, join(configPath, '..')).options,
  sourceMap: false,
  inlineSourceMap: true,
  declaration: false,
};

require.extensions['.ts'] = (module, filename) => {
  const source = readFileSync(filename, 'utf8');
  const { outputText } = ts.transpileModule(source, { compilerOptions, fileName: filename });
  module._compile(outputText, filename);
};
