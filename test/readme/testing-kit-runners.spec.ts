import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeBlocks, ROOT } from './readme-blocks';

/**
 * README's "Testing your app" shows the kit for Jest and for Vitest. The Jest block runs in
 * this suite (readme-snippets.e2e.spec.ts); the Vitest one is the spec that CI type-checks
 * (TypeScript 6, nodenext, strict) and runs with Vitest in the ESM app of .ci/nest12-app,
 * against the packed package and NestJS 12. Both must stay what the README shows.
 */
describe('README "Testing your app"', () => {
  const section = (() => {
    const text = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const from = text.indexOf('## Testing your app');
    return { from, to: text.indexOf('\n## ', from + 1), text };
  })();
  const linesBefore = (index: number) => section.text.slice(0, index).split('\n').length;
  const blocks = readmeBlocks().filter(
    (block) => block.line > linesBefore(section.from) && block.line < linesBefore(section.to),
  );

  it('has a Jest block and a Vitest block', () => {
    expect(blocks.map((block) => block.language)).toEqual(['ts', 'typescript']);
    expect(blocks[0].code).toContain("describe('exports'");
    expect(blocks[1].code).toContain("from 'vitest'");
  });

  it('shows as its Vitest block the spec that CI runs in the ESM app, character for character', () => {
    const spec = readFileSync(
      join(ROOT, '.ci', 'nest12-app', 'src', 'export.controller.spec.ts'),
      'utf8',
    );
    expect(blocks[1].code).toBe(spec);
  });
});
