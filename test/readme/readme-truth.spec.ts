import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './readme-blocks';
import { LIMIT_KINDS } from '../../src/algorithms/registry';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** The README's prose: code blocks removed, so only what renders as text is checked. */
const prose = readme.replace(/^```\w*\n[\s\S]*?^```$/gm, '');
const peers = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).peerDependencies;

/** The majors of a peer range such as `^10.0.0 || ^11.0.0`: `10, 11 or 12` as prose says it. */
function majorsInWords(range: string): string {
  const majors = [...range.matchAll(/\^(\d+)\./g)].map((match) => match[1]);
  return `${majors.slice(0, -1).join(', ')} or ${majors[majors.length - 1]}`;
}

describe('README.md stays true and self-contained', () => {
  it('cites no document outside the repository', () => {
    expect(prose.match(/DESIGN|§/g)).toBeNull();
  });

  it('renders no list item as a quote (a wrapped line starting with ">")', () => {
    const quoted = prose.split('\n').filter((line) => /^\s*>/.test(line));
    expect(quoted).toEqual([]);
  });

  it('names the NestJS majors the peer dependencies accept', () => {
    expect(majorsInWords(peers['@nestjs/core'])).toBe('10, 11 or 12');
    expect(prose).toContain(`\`@nestjs/core\` ${majorsInWords(peers['@nestjs/core'])},`);
  });

  it("shows a long key's hashed part as it is written: with the algorithm's name", () => {
    const shown = [...prose.matchAll(/%#(\w+):/g)].map((match) => match[1]);
    expect(shown).toEqual(['countLimit']);
    const names = LIMIT_KINDS.map((kind) => kind.name);
    for (const name of shown) expect(names).toContain(name);
  });

  it('describes current behaviour, not history', () => {
    for (const phrase of [
      'before, the first one won',
      'stays spent',
      'it did\n',
      'the old answer',
    ]) {
      expect(prose).not.toContain(phrase);
    }
  });
});
