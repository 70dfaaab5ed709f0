import * as ts from 'typescript';
import { join } from 'node:path';
import { readmeBlocks, ROOT, writeTsBlocks } from './readme-blocks';

describe('README', () => {
  it('starts with npm install nestjs-limiter', () => {
    const [first] = readmeBlocks();
    expect(first).toMatchObject({ language: 'bash', code: 'npm install nestjs-limiter\n' });
  });

  it('every ts block is complete and type-checks against the package source', () => {
    const files = writeTsBlocks();
    expect(files.size).toBeGreaterThanOrEqual(8);
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
        return `README.md:${block.line + 1 + line}: ${message}`;
      });
    expect(problems).toEqual([]);
    // A snippet that fails to resolve a module is reported above; this guards the check itself.
    expect(program.getSourceFiles().some((file) => file.fileName.endsWith('src/index.ts'))).toBe(
      true,
    );
  }, 120_000);
});
