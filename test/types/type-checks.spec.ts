/*
 * Everything the suite type-checks beyond `tsc -p tsconfig.json`: the documentation's ts
 * blocks and the option types as people write them, in ONE TypeScript program. Building a
 * program (the package source, NestJS's and Node's declarations) is most of the cost, so the
 * two share one, and only their own files are checked: the source itself is `tsc`'s job.
 */
import * as ts from 'typescript';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentationFiles, readmeBlocks, ROOT, writeTsBlocks } from '../readme/readme-blocks';

const OPTIONS_PEOPLE_WRITE = join(__dirname, 'options-people-write.ts');
const blocks = writeTsBlocks();
const program = programOf([...blocks.keys(), OPTIONS_PEOPLE_WRITE]);

/** One program of these files, against the package source (tsconfig.json's paths). */
function programOf(files: string[]): ts.Program {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  // tsconfig.json maps 'nestjs-limiter' and 'nestjs-limiter/testing' to src/.
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return ts.createProgram(files, { ...options, noEmit: true });
}

/** The compiler's complaints about one file: its syntax and its types, each with its line. */
function diagnosticsOf(file: string): { line: number; message: string }[] {
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`type checks: ${file} is not in the program`);
  return [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ].map((diagnostic) => ({
    line: source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line,
    message: ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'),
  }));
}

const hasTsBlock = (document: string) =>
  readmeBlocks(document).some((block) => block.language === 'ts');

describe('README and docs/', () => {
  it('starts with installing the package from the tarball npm pack writes', () => {
    const [first] = readmeBlocks();
    const { name, version, scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    // Until the package is on the registry; `npm pack` builds it through `prepack`.
    expect(scripts.prepack).toMatch(/^npm run build && /);
    expect(first.language).toBe('bash');
    expect(first.code).toContain('npm ci && npm pack');
    // The tarball npm pack writes, whatever version a release gave package.json.
    expect(`${name}-${version}.tgz`).toMatch(/^nestjs-limiter-\d+\.\d+\.\d+\.tgz$/);
    expect(first.code).toContain(`npm install ../nestjs-limiter/${name}-*.tgz`);
  });

  it('every ts block of README.md and docs/ is complete and type-checks against the package source', () => {
    const documents = new Set([...blocks.values()].map((block) => block.document));
    expect(documents).toEqual(new Set(documentationFiles().filter(hasTsBlock)));
    expect([...documents]).toEqual(expect.arrayContaining(['README.md', 'docs/options.md']));
    expect(blocks.size).toBeGreaterThanOrEqual(23);
    const problems = [...blocks].flatMap(([file, block]) =>
      diagnosticsOf(file).map(
        ({ line, message }) => `${block.document}:${block.line + 1 + line}: ${message}`,
      ),
    );
    expect(problems).toEqual([]);
    // A snippet that fails to resolve a module is reported above; this guards the check itself.
    expect(program.getSourceFiles().some((file) => file.fileName.endsWith('src/index.ts'))).toBe(
      true,
    );
  }, 120_000);
});

describe('the option types accept what people write', () => {
  it("'USER' as well as LimitType.USER, duration strings and capacity; refuses the rest", () => {
    const problems = diagnosticsOf(OPTIONS_PEOPLE_WRITE);
    expect(problems.map(({ line, message }) => `${line + 1}: ${message}`)).toEqual([]);
  }, 120_000);
});

describe("the public LimiterAlgorithm: what an algorithm of the app's own implements", () => {
  it('names no engine flag (forgetsDenials, stateOf, isDecision, readsOnly are internal)', () => {
    const checker = program.getTypeChecker();
    const index = program.getSourceFile(join(ROOT, 'src', 'index.ts'))!;
    const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(index)!);
    const symbol = exported.find(({ name }) => name === 'LimiterAlgorithm')!;
    const type = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(symbol));
    expect(type.getProperties().map(({ name }) => name)).toEqual([
      'commandName',
      'lua',
      'luaIncludes',
      'paramsArgv',
      'requestArgv',
      'step',
      'limit',
      'decision',
      'denialScope',
    ]);
    expect(exported.map(({ name }) => name)).not.toContain('EngineAlgorithm');
  });
});
