import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** `npm test` builds first; the published package must carry every script next to its model. */
describe('published package', () => {
  const root = join(__dirname, '..', '..');

  function luaFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? luaFiles(join(dir, entry.name))
        : entry.name.endsWith('.lua')
          ? [join(dir, entry.name)]
          : [],
    );
  }

  it('lists every .lua of src/ under lib/ in npm pack', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: root,
        encoding: 'utf8',
      }),
    );
    const packed = new Set<string>(pack.files.map((file: { path: string }) => file.path));
    const expected = luaFiles(join(root, 'src')).map((file) =>
      relative(root, file).replace(/^src\//, 'lib/'),
    );
    expect(expected.length).toBe(7);
    for (const file of expected) expect(packed).toContain(file);
    expect(packed).toContain('lib/index.js');
    expect([...packed].some((file) => file.startsWith('src/') || file.startsWith('test/'))).toBe(
      false,
    );
  });
});
