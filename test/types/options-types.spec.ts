import * as ts from 'typescript';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const FILE = join(__dirname, 'options-people-write.ts');

/** The compiler's diagnostics for one file, checked against the package source (tsconfig paths). */
function diagnosticsOf(file: string): string[] {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const program = ts.createProgram([file], { ...options, noEmit: true });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((diagnostic) => diagnostic.file?.fileName === file)
    .map((diagnostic) => {
      const { line } = diagnostic.file!.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      return `${line + 1}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
}

describe('the option types accept what people write', () => {
  it("'USER' as well as LimitType.USER, duration strings and capacity; refuses the rest", () => {
    expect(diagnosticsOf(FILE)).toEqual([]);
  }, 120_000);
});
