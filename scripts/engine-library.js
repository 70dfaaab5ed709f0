// `npm run engine:library`: writes src/stores/redis/engine/library.generated.lua, the engine
// library the store loads, as src/stores/redis/engine/compose-library.ts composes it from the
// .lua files and the registry's definitions. The TypeScript is compiled as it is required
// (TypeScript's transpileModule, the project's compiler options), so no build comes first.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const ts = require('typescript');

const ROOT = join(__dirname, '..');
const { config } = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
const compilerOptions = { ...config.compilerOptions, module: 'commonjs', sourceMap: false };
require.extensions['.ts'] = (module, file) => {
  const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: ts.convertCompilerOptionsFromJson(compilerOptions, ROOT).options,
    fileName: file,
  });
  module._compile(outputText, file);
};

const ENGINE = join(ROOT, 'src', 'stores', 'redis', 'engine');
const { composeEngineLibrary } = require(join(ENGINE, 'compose-library.ts'));
const GENERATED = join(ENGINE, 'library.generated.lua');
writeFileSync(GENERATED, composeEngineLibrary());
console.log(`wrote ${GENERATED}`);
