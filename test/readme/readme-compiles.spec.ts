import * as ts from 'typescript';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { documentationFiles, readmeBlocks, ROOT, writeTsBlocks } from './readme-blocks';

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
    const files = writeTsBlocks();
    const documents = new Set([...files.values()].map((block) => block.document));
    expect(documents).toEqual(new Set(documentationFiles().filter(hasTsBlock)));
    expect([...documents]).toEqual(expect.arrayContaining(['README.md', 'docs/options.md']));
    expect(files.size).toBeGreaterThanOrEqual(23);
    const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    // tsconfig.json maps 'nestjs-limiter' and 'nestjs-limiter/testing' to src/.
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
    const program = ts.createProgram([...files.keys()], { ...options, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.file && files.has(diagnostic.file.fileName))
      .map((diagnostic) => {
        const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
        const block = files.get(diagnostic.file!.fileName)!;
        const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
        return `${block.document}:${block.line + 1 + line}: ${message}`;
      });
    expect(problems).toEqual([]);
    // A snippet that fails to resolve a module is reported above; this guards the check itself.
    expect(program.getSourceFiles().some((file) => file.fileName.endsWith('src/index.ts'))).toBe(
      true,
    );
  }, 120_000);
});
