import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { headingAnchors, ROOT } from './readme-blocks';

/**
 * Code and tests explain themselves, or cite the project's own design record,
 * docs/design.md, by a section that exists: never a document outside the repository.
 */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return /\.(ts|js|lua|md)$/.test(entry.name) ? [path] : [];
  });
}

const files = ['src', 'test'].flatMap((dir) => filesUnder(join(ROOT, dir)));
/** A contract kept outside the repository, by its section sign or its file name. */
const OUTSIDE_DOCUMENT = /DESIGN\s*(\u00a7|\.md)|\u00a7/;

describe('citations in src/ and test/', () => {
  it('cite no document outside the repository', () => {
    const outside = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, index) => `${relative(ROOT, file)}:${index + 1}: ${line.trim()}`)
        .filter((line) => OUTSIDE_DOCUMENT.test(line.slice(line.indexOf(': ') + 2))),
    );
    expect(files.length).toBeGreaterThan(300);
    expect(outside).toEqual([]);
  });

  it('cite docs/design.md by sections it has', () => {
    const sections = headingAnchors('docs/design.md');
    const cited = files.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/docs\/design\.md#([\w-]+)/g)].map(
        (match) => `${relative(ROOT, file)}: #${match[1]}`,
      ),
    );
    expect(cited.length).toBeGreaterThanOrEqual(10);
    expect(cited.filter((citation) => !sections.has(citation.split('#')[1]))).toEqual([]);
  });
});
