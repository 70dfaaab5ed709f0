import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
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

  it('holds no Redis protocol code: no module of lib/ loads a socket module', () => {
    const files = (function walk(dir: string): string[] {
      return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? walk(join(dir, entry.name)) : [join(dir, entry.name)],
      );
    })(join(root, 'lib')).filter((file) => file.endsWith('.js'));
    expect(files.length).toBeGreaterThan(50);
    const loadsSockets = files.filter((file) =>
      /require\("(node:)?(net|tls)"\)/.test(readFileSync(file, 'utf8')),
    );
    expect(loadsSockets).toEqual([]);
  });

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
    // 7 algorithms (the calendar quota the seventh), 5 refunds, 2 charges (the token bucket's
    // is its acquire, the counter's and the approximate window's their acquire without the
    // limit), 2 helpers (the approximate window's roll, the token bucket's state as found), the
    // counter's decision in two commands, the engine's loop and its prelude, the blocks of
    // string and zset states, the acquire with blocks and the other operations on a key, the
    // coalesced acquire (the loop that runs any acquire n times on one key), the endpoint
    // probe's 3 scripts; the library's source, its generated file, its entry as
    // a script and the entry of an algorithm of the app's own; the upstream budgets' learning
    // and their book of starts; the library's table and each of the 7 algorithms' entries in it
    expect(expected.length).toBe(41);
    for (const file of expected) expect(packed).toContain(file);
    // The composed engine library, to read what runs.
    expect(packed).toContain('lib/stores/redis/engine/library.generated.lua');
    expect(packed).toContain('lib/index.js');
    expect(packed).toContain('lib/testing/index.js');
    expect(packed).toContain('LICENSE');
    expect([...packed].some((file) => file.startsWith('src/') || file.startsWith('test/'))).toBe(
      false,
    );
  });
});

describe('JSDoc examples', () => {
  const root = join(__dirname, '..', '..', 'src');

  function tsFiles(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? tsFiles(join(dir, entry.name))
        : entry.name.endsWith('.ts')
          ? [join(dir, entry.name)]
          : [],
    );
  }

  it('are fenced code blocks, so editors do not read `@Get(...)` in them as tags', () => {
    const unfenced: string[] = [];
    let examples = 0;
    for (const file of tsFiles(root)) {
      const lines = readFileSync(file, 'utf8').split('\n');
      lines.forEach((line, i) => {
        if (!/^\s*\* @example\s*$/.test(line)) return;
        examples++;
        if (lines[i + 1]?.trim() !== '* ```ts') unfenced.push(`${relative(root, file)}:${i + 1}`);
      });
    }
    expect(unfenced).toEqual([]);
    expect(examples).toBeGreaterThanOrEqual(15);
  });
});
