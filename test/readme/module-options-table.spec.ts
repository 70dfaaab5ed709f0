import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { ROOT } from './readme-blocks';

/**
 * Every key of `RateLimiterModuleOptions` (its inherited ones included), read from the type
 * itself so that an option added to the interface fails here until docs/options.md has a row
 * for it.
 */
function moduleOptionKeys(): string[] {
  const file = join(ROOT, 'src', 'rate-limiter.options.ts');
  const program = ts.createProgram([file], {
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    experimentalDecorators: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const declaration = program
    .getSourceFile(file)!
    .statements.find(
      (statement): statement is ts.InterfaceDeclaration =>
        ts.isInterfaceDeclaration(statement) && statement.name.text === 'RateLimiterModuleOptions',
    );
  if (!declaration)
    throw new Error('src/rate-limiter.options.ts declares no RateLimiterModuleOptions');
  return checker
    .getPropertiesOfType(checker.getTypeAtLocation(declaration.name))
    .map((property) => property.name)
    .sort();
}

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
