import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * No function of src/ takes more than a handful of parameters: past that, a call site is a
 * row of values read by position, and the values that travel together want one object that
 * names them (RedisDecision takes the store's DecisionCall whole, not its fields).
 */
const SRC = resolve(__dirname, '..', '..', 'src');
/** The most parameters a function, method, constructor or arrow of src/ may take. */
const MAX_PARAMETERS = 7;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each function-like declaration of `text` with more than `max` parameters, as `line: name (n)`. */
function wideFunctions(fileName: string, text: string, max: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && node.parameters.length > max) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
      const name = node.name?.getText(source) ?? ts.SyntaxKind[node.kind];
      found.push(`${line + 1}: ${name} (${node.parameters.length})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('parameters (src/)', () => {
  it(`finds a function of ${MAX_PARAMETERS + 1} parameters, and none of ${MAX_PARAMETERS}`, () => {
    const eight = 'a, b, c, d, e, f, g, h';
    const seven = 'a, b, c, d, e, f, g';
    const text = [
      `function wide(${eight}) {}`,
      `class A { constructor(${seven}) {} method(${eight}) {} }`,
      `const arrow = (${eight}) => 0;`,
      `type Call = (${eight}) => void;`,
      `function narrow(${seven}) {}`,
    ].join('\n');
    expect(wideFunctions('probe.ts', text, MAX_PARAMETERS)).toEqual([
      '1: wide (8)',
      '2: method (8)',
      '3: ArrowFunction (8)',
      '4: FunctionType (8)',
    ]);
  });

  it(`has no function, method, constructor or arrow of more than ${MAX_PARAMETERS}`, () => {
    const offenders = sourceFiles(SRC).flatMap((file) =>
      wideFunctions(file, readFileSync(file, 'utf8'), MAX_PARAMETERS).map(
        (found) => `src/${relative(SRC, file)}:${found}`,
      ),
    );
    expect(offenders).toEqual([]);
  });
});
