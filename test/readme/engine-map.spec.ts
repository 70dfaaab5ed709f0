import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { ROOT } from './readme-blocks';

/**
 * docs/engine.md is the contributor's map of the Lua: its table names every `.lua` file under
 * src/ with its form, and src/algorithms/README.md names every kind of Lua file an algorithm's
 * folder holds. Both are held to the files, so a new file, a moved one or a body turned into
 * functions shows here rather than in a stale page.
 */
const FORMS = ['functions', 'entries', 'library', 'generated', 'script part', 'script'];

function luaFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return luaFiles(path);
    return entry.name.endsWith('.lua') ? [relative(ROOT, path)] : [];
  });
}

/** The rows of the table under "Where the Lua lives": file and form. */
function engineMap(): Map<string, string> {
  const page = readFileSync(join(ROOT, 'docs', 'engine.md'), 'utf8');
  const from = page.indexOf('## Where the Lua lives');
  const section = page.slice(from, page.indexOf('\n## ', from + 1));
  const rows = [...section.matchAll(/^\| `(src\/[^`]+\.lua)` \|.*\| ([a-z ]+) \|$/gm)];
  return new Map(rows.map((row) => [row[1], row[2]]));
}

/** Lua code with its comments and blank lines left out. */
const codeOf = (file: string) =>
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !/^\s*--/.test(line));

/**
 * Whether a file only defines (functions, and the locals and tables they share): every line
 * at its top level declares, none runs statements there (an `if`, a `return`).
 */
const onlyDefines = (file: string) =>
  codeOf(file)
    .filter((line) => /^\S/.test(line))
    .every((line) => /^(local function |local [\w, ]+( =|$)|function [\w.:]+\(|end$)/.test(line));

describe('docs/engine.md, the map of the Lua', () => {
  const map = engineMap();
  const files = luaFiles(join(ROOT, 'src')).sort();

  it('names every .lua file under src/, and no other', () => {
    expect(files.length).toBeGreaterThanOrEqual(36);
    expect([...map.keys()].sort()).toEqual(files);
  });

  it('gives each its form, one of the forms the page defines', () => {
    expect([...map].filter(([, form]) => !FORMS.includes(form))).toEqual([]);
    const page = readFileSync(join(ROOT, 'docs', 'engine.md'), 'utf8');
    for (const form of FORMS) expect(page).toContain(`- **${form}**`);
  });

  it("calls every algorithm's file functions: no file is the body of a function the library wraps", () => {
    const isEntries = (file: string) => file.endsWith('.entries.lua');
    const algorithms = files.filter((file) => file.startsWith('src/algorithms/'));
    const own = algorithms.filter((file) => !isEntries(file));
    expect(own.filter((file) => map.get(file) !== 'functions')).toEqual([]);
    expect(own.filter((file) => !onlyDefines(file))).toEqual([]);
    // An entries file only adds its algorithm's entries, whole in the generated library.
    const entries = algorithms.filter(isEntries);
    expect(entries.filter((file) => map.get(file) !== 'entries')).toEqual([]);
    const [generated] = [...map].filter(([, form]) => form === 'generated').map(([file]) => file);
    const library = codeOf(generated).join('\n');
    for (const file of entries) {
      const code = codeOf(file).join('\n');
      expect([file, /^add_entries\(\w+, \{.*\}\)$/s.test(code), library.includes(code)]).toEqual([
        file,
        true,
        true,
      ]);
    }
  });

  it('calls functions the files that only define, each included whole', () => {
    const functions = [...map].filter(([, form]) => form === 'functions').map(([file]) => file);
    expect(functions.filter((file) => !onlyDefines(file))).toEqual([]);
    // Included by a file's `--- @include`: whole, in the generated library.
    const [generated] = [...map].filter(([, form]) => form === 'generated').map(([file]) => file);
    const library = codeOf(generated).join('\n');
    expect(functions.filter((file) => !library.includes(codeOf(file).join('\n')))).toEqual([]);
  });
});

describe('src/algorithms/README.md, the layout of an algorithm', () => {
  it("names every kind of Lua file the algorithms' folders hold", () => {
    const readme = readFileSync(join(ROOT, 'src', 'algorithms', 'README.md'), 'utf8');
    const dir = join(ROOT, 'src', 'algorithms');
    const folders = readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'state-ops')
      .map((entry) => entry.name);
    const named = folders.flatMap((folder) =>
      readdirSync(join(dir, folder))
        .filter((name) => name.endsWith('.lua'))
        .map((name) => {
          // `<name>.refund.lua` is named by its kind; a helper of one algorithm by its file.
          const kind = basename(name).replace(folder, '<name>');
          return [kind, name].some((form) => readme.includes(`\`${form}\``)) ? null : name;
        }),
    );
    expect(named.filter(Boolean)).toEqual([]);
    const stateOps = readdirSync(join(dir, 'state-ops')).filter((name) => name.endsWith('.lua'));
    expect(stateOps.filter((name) => !readme.includes(`\`${name}\``))).toEqual([]);
  });
});
