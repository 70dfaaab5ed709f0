import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as ts from 'typescript';
import { ROOT } from './readme-blocks';

/**
 * Every key of `RateLimiterModuleOptions`, those of the interfaces it extends included, read
 * from the source (parsed, not type-checked: cheap enough for the fast loop), so that an option
 * added to the interface fails here until docs/options.md has a row for it.
 */
function interfaceKeys(file: string, name: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const declaration = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === name,
  );
  if (!declaration) throw new Error(`${file} declares no interface ${name}`);
  const own = declaration.members.flatMap((member) =>
    ts.isPropertySignature(member) && ts.isIdentifier(member.name) ? [member.name.text] : [],
  );
  const inherited = (declaration.heritageClauses ?? [])
    .flatMap((clause) => clause.types)
    .flatMap((base) => {
      const baseName = base.expression.getText(source);
      const from = source.statements.find(
        (statement): statement is ts.ImportDeclaration =>
          ts.isImportDeclaration(statement) &&
          (statement.importClause?.getText(source) ?? '').includes(baseName),
      );
      if (!from) return interfaceKeys(file, baseName);
      const path = (from.moduleSpecifier as ts.StringLiteral).text;
      return interfaceKeys(join(dirname(file), `${path}.ts`), baseName);
    });
  return [...own, ...inherited];
}

const moduleOptionKeys = () =>
  interfaceKeys(join(ROOT, 'src', 'rate-limiter.options.ts'), 'RateLimiterModuleOptions').sort();

/** The first column of the table under docs/options.md's "Module options" heading. */
function documentedModuleOptions(): string[] {
  const text = readFileSync(join(ROOT, 'docs', 'options.md'), 'utf8');
  const section = text.split(/^## Module options$/m)[1]?.split(/^## /m)[0] ?? '';
  return [...section.matchAll(/^\| `([A-Za-z0-9]+)` \|/gm)].map((match) => match[1]).sort();
}

describe("docs/options.md's module options table", () => {
  it('has one row for every key of RateLimiterModuleOptions, and no other', () => {
    const keys = moduleOptionKeys();
    expect(keys).toEqual(expect.arrayContaining(['redis', 'errorMessage', 'redisCalls']));
    expect(documentedModuleOptions()).toEqual(keys);
  });
});
