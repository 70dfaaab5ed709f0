import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { ROOT } from './readme-blocks';

/**
 * docs/engine.md is the contributor's map of the Lua: its table names every `.lua` file under
 * src/ with its form, and src/algorithms/README.md names every kind of Lua file an algorithm's
 * folder holds. Both are held to the files, so a new file, a moved one or a body turned into
 * functions shows here rather than in a stale page.
 */
const FORMS = ['body', 'functions', 'library', 'generated', 'script part', 'script'];

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
 * at its top level declares, where a body runs statements there (an `if`, a `return`) as the
 * body of `function(key, now, argv)`.
 */
const onlyDefines = (file: string) =>
  codeOf(file)
    .filter((line) => /^\S/.test(line))
    .every((line) => /^(local function |local [\w, ]+( =|$)|function [\w.:]+\(|end$)/.test(line));

/** The files `library` (a path from the root) includes between a function's first line and its `end`. */
function wrappedBy(library: string): Set<string> {
  const lines = readFileSync(join(ROOT, library), 'utf8').split('\n');
  const wrapped = new Set<string>();
  lines.forEach((line, index) => {
    const include = /^--- @include "([^"]+)"$/.exec(line);
    const opens = /^local function \w+\(key, now, argv\)$/.test(lines[index - 1] ?? '');
    if (include && opens && lines[index + 1] === 'end') {
      wrapped.add(relative(ROOT, join(ROOT, dirname(library), include[1])));
    }
  });
  return wrapped;
}

describe('docs/engine.md, the map of the Lua', () => {
  const map = engineMap();
  const files = luaFiles(join(ROOT, 'src')).sort();

  it('names every .lua file under src/, and no other', () => {
    expect(files.length).toBeGreaterThanOrEqual(38);
    expect([...map.keys()].sort()).toEqual(files);
  });

  it('gives each its form, one of the forms the page defines', () => {
    expect([...map].filter(([, form]) => !FORMS.includes(form))).toEqual([]);
    const page = readFileSync(join(ROOT, 'docs', 'engine.md'), 'utf8');
    for (const form of FORMS) expect(page).toContain(`- **${form}**`);
  });

  it('calls a body exactly the files the library wraps in a function, each running statements', () => {
    const bodies = [...map].filter(([, form]) => form === 'body').map(([file]) => file);
    // The library's source is the row that says so: the check follows it wherever it moves.
    const libraries = [...map].filter(([, form]) => form === 'library').map(([file]) => file);
    expect(libraries).toHaveLength(1);
    expect(bodies.sort()).toEqual([...wrappedBy(libraries[0])].sort());
    expect(bodies.filter(onlyDefines)).toEqual([]);
  });

  it('calls functions the files that only define, each included whole', () => {
    const functions = [...map].filter(([, form]) => form === 'functions').map(([file]) => file);
    expect(functions.filter((file) => !onlyDefines(file))).toEqual([]);
    const included = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/^--- @include "([^"]+)"$/gm)].map(
        (include) => relative(ROOT, join(ROOT, file, '..', include[1])),
      ),
    );
    expect(functions.filter((file) => !included.includes(file))).toEqual([]);
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
