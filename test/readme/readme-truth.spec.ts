import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { documentationFiles, headingAnchors, ROOT } from './readme-blocks';
import { MemoryStore, RateLimiterFactory } from '../../src';

const read = (document: string) => readFileSync(join(ROOT, document), 'utf8');
/** A document's prose: code blocks removed, so only what renders as text is checked. */
const proseOf = (document: string) => read(document).replace(/^```\w*\n[\s\S]*?^```$/gm, '');
const documents = documentationFiles();
/** The contributor's pages, whose links are held as the user's are. */
const linking = [...documents, 'CONTRIBUTING.md', 'src/algorithms/README.md'];
const readme = proseOf('README.md');
const peers = JSON.parse(read('package.json')).peerDependencies;

/** The majors of a peer range such as `^10.0.0 || ^11.0.0`: `10, 11 or 12` as prose says it. */
function majorsInWords(range: string): string {
  const majors = [...range.matchAll(/\^(\d+)\./g)].map((match) => match[1]);
  return `${majors.slice(0, -1).join(', ')} or ${majors[majors.length - 1]}`;
}

describe('README.md and docs/ stay true and self-contained', () => {
  it('README.md is the short path: at most 450 lines', () => {
    expect(read('README.md').split('\n').length).toBeLessThanOrEqual(450);
  });

  it.each(documents)('%s cites no document outside the repository', (document) => {
    expect(proseOf(document).match(/DESIGN|\u00a7/g)).toBeNull();
  });

  it.each(documents)(
    '%s renders no list item as a quote (a wrapped line starting with ">")',
    (document) => {
      const quoted = proseOf(document)
        .split('\n')
        .filter((line) => /^\s*>/.test(line));
      expect(quoted).toEqual([]);
    },
  );

  it.each(linking)('%s links only to files and headings that exist', (document) => {
    const broken = [];
    for (const [, target] of proseOf(document).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // a web address
      const [path, anchor] = target.split('#');
      const file = path ? normalize(join(dirname(document), path)) : document;
      if (!existsSync(join(ROOT, file))) broken.push(target);
      else if (anchor !== undefined && !headingAnchors(file).has(anchor)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });

  it.each(documents)('%s has no empty section (a heading right before its sibling)', (document) => {
    const empty: string[] = [];
    let open: { heading: string; level: number; said: boolean } | undefined;
    let inCode = false;
    for (const line of read(document).split('\n')) {
      if (line.startsWith('```')) inCode = !inCode;
      const heading = inCode ? null : /^(#+) /.exec(line);
      if (!heading) {
        if (open && line.trim() !== '') open.said = true;
        continue;
      }
      if (open && !open.said && heading[1].length <= open.level) empty.push(open.heading);
      open = { heading: line, level: heading[1].length, said: false };
    }
    expect(empty).toEqual([]);
  });

  it('names the NestJS majors the peer dependencies accept', () => {
    expect(majorsInWords(peers['@nestjs/core'])).toBe('10, 11 or 12');
    expect(readme).toContain(`\`@nestjs/core\` ${majorsInWords(peers['@nestjs/core'])},`);
  });

  it("shows a long key's hashed part as the factory writes it", () => {
    const factory = new RateLimiterFactory(new MemoryStore());
    const longKey = factory.countLimiter({ key: 'x'.repeat(300), limit: 1, period: 1 }).key;
    const [, written] = /%#(\w+):[0-9a-f]{40}$/.exec(longKey)!;
    const shown = documents.flatMap((document) =>
      [...proseOf(document).matchAll(/%#(\w+):/g)].map((match) => match[1]),
    );
    expect(shown).toEqual([written]);
  });

  // The design record keeps decisions with their reasons, history included.
  const currentBehaviour = documents.filter((document) => document !== 'docs/design.md');
  it.each(currentBehaviour)('%s describes current behaviour, not history', (document) => {
    for (const phrase of [
      'before, the first one won',
      'stays spent',
      'it did\n',
      'the old answer',
      'deprecated alias',
    ]) {
      expect(proseOf(document)).not.toContain(phrase);
    }
  });
});
