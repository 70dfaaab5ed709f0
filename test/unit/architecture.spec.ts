import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import * as ts from 'typescript';

/**
 * The layout of docs/design.md#layout: imports run downward only, and no file imports itself back
 * through others. Read with the TypeScript compiler's own import scanner, type-only
 * imports included (a type that points upward ties the floors together all the same).
 */
const SRC = resolve(__dirname, '..', '..', 'src');
/** The most lines a file of src/ may have. */
const MAX_LINES = 250;

function sourceFiles(dir: string, name = /\.ts$/): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path, name);
    return name.test(entry.name) ? [path] : [];
  });
}

/** Each file of src/ (relative path) and the files of src/ it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => resolve(dirname(file), name))
      .map((path) =>
        [`${path}.ts`, join(path, 'index.ts')].find((candidate) => existsSync(candidate)),
      )
      .filter((path): path is string => path !== undefined)
      .map((path) => relative(SRC, path));
    graph.set(relative(SRC, file), targets);
  }
  return graph;
}

/** The strongly connected groups of more than one file (Tarjan): each one a circle. */
function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) === index.get(file)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== file);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/**
 * The circles between the rooms of `folder`: each file or folder right under it is one room,
 * so a file of a sub-folder that imports a file beside that sub-folder, which imports the
 * sub-folder back, is a circle although no file imports itself.
 */
function roomCircles(graph: Map<string, string[]>, folder: string): string[][] {
  const room = (file: string) =>
    file.startsWith(`${folder}/`)
      ? `${folder}/${file.slice(folder.length + 1).split('/')[0]}`
      : undefined;
  const rooms = new Map<string, string[]>();
  for (const [file, targets] of graph) {
    const from = room(file);
    if (from === undefined) continue;
    const to = targets.map(room).filter((r): r is string => r !== undefined && r !== from);
    rooms.set(from, [...(rooms.get(from) ?? []), ...to]);
  }
  return circles(rooms);
}

/** Lines as `wc -l` counts them, a last line without its newline included. */
const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

const folderOf = (file: string) => (file.includes('/') ? file.split('/')[0] : file);

/** The imports from files of `floors` into files of `above`, as `from -> to`. */
function arrows(graph: Map<string, string[]>, floors: string[], above: string[]): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (!floors.includes(folderOf(file))) continue;
    for (const target of targets) {
      if (above.includes(folderOf(target))) found.push(`${file} -> ${target}`);
    }
  }
  return found;
}

/** What sits above the floors that do the work: the Nest guard, the module and its options. */
const UPPER = [
  'discovery',
  'request',
  'compile',
  'admin',
  'context',
  'decorators',
  'limiter',
  'testing',
  'index.ts',
  'rate-limiter.module.ts',
  'rate-limiter.module-definition.ts',
  'rate-limiter.options.ts',
  'rate-limiter.options-validation.ts',
  'store-from-options.ts',
];

describe('imports run downward only (docs/design.md#layout)', () => {
  const graph = importGraph();

  it('reads the whole of src/', () => {
    expect(graph.size).toBeGreaterThan(120);
    expect(
      [...graph.keys()].filter((file) => file.startsWith('contracts/')).length,
    ).toBeGreaterThan(3);
  });

  it('has no import circles between files', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('contracts/ imports nothing of ours', () => {
    const outside = [...graph]
      .filter(([file]) => folderOf(file) === 'contracts')
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => folderOf(target) !== 'contracts')
          .map((target) => `${file} -> ${target}`),
      );
    expect(outside).toEqual([]);
  });

  it('algorithms, stores and keys import nothing from the guard, the module, metrics or admin', () => {
    expect(arrows(graph, ['algorithms', 'stores', 'keys'], [...UPPER, 'metrics'])).toEqual([]);
  });

  it('metrics and the request readers import nothing from the guard or the module', () => {
    expect(arrows(graph, ['metrics'], UPPER)).toEqual([]);
    const guardOrModule = UPPER.filter((floor) => floor !== 'context');
    expect(arrows(graph, ['context'], guardOrModule)).toEqual([]);
  });

  it('the request path runs one way: start-up binding, the request, its compiled plans', () => {
    // discovery/ binds at start-up (it reads for RateLimitGuard); the request's work (the
    // guard, then what runs after the handler) reads the plans that start-up compiled.
    const floors = ['discovery', 'request', 'compile'];
    const upward = floors.flatMap((floor, i) => arrows(graph, [floor], floors.slice(0, i)));
    expect(upward).toEqual([]);
  });

  it('decorators are metadata: they import nothing of the request path', () => {
    const requestPath = ['discovery', 'request', 'compile'];
    expect(arrows(graph, ['decorators'], requestPath)).toEqual([]);
  });

  it("keeps what a request's phases hand each other in one ledger, not in maps keyed by the request", () => {
    const requestPath = ['request'];
    const keyedByRequest = [...graph.keys()]
      .filter((file) => requestPath.includes(folderOf(file)))
      .filter((file) => /new Weak(Map|Set)<object\b/.test(readFileSync(join(SRC, file), 'utf8')));
    expect(keyedByRequest.map((file) => file.split('/').pop())).toEqual(['request-ledger.ts']);
  });

  it('stores/ holds the store contract at its root and a folder a backend', () => {
    const root = readdirSync(join(SRC, 'stores'), { withFileTypes: true });
    expect(root.filter((entry) => entry.isFile()).length).toBeLessThanOrEqual(3);
    expect(root.filter((entry) => entry.isDirectory()).map((entry) => entry.name)).toEqual([
      'failure',
      'memory',
      'redis',
    ]);
    // The failure policy wraps any store and keeps a memory store as its insurance; the memory
    // store knows no Redis; the Redis store reads the failure policy's error log.
    const backend = (file: string) => {
      const [top, folder, rest] = file.split('/');
      return top === 'stores' ? (rest === undefined ? 'contract' : folder) : undefined;
    };
    const across = (from: string, to: string[]) =>
      [...graph].flatMap(([file, targets]) =>
        backend(file) === from
          ? targets.filter((t) => to.includes(backend(t)!)).map((t) => `${file} -> ${t}`)
          : [],
      );
    expect(across('contract', ['failure', 'memory', 'redis'])).toEqual([]);
    expect(across('memory', ['failure', 'redis'])).toEqual([]);
    expect(across('failure', ['redis'])).toEqual([]);
    expect(across('redis', ['memory'])).toEqual([]);
  });

  it('no two rooms of stores/, stores/redis/ or algorithms/ import each other, a folder as one room', () => {
    for (const folder of ['stores', 'stores/redis', 'algorithms']) {
      expect([folder, roomCircles(graph, folder)]).toEqual([folder, []]);
    }
  });

  it('an algorithm is one folder: its model, its definition, its memory twin and at most 5 Lua files', () => {
    const folders = readdirSync(join(SRC, 'algorithms'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'state-ops')
      .map((entry) => entry.name);
    expect(folders.length).toBeGreaterThanOrEqual(6);
    for (const folder of folders) {
      const files = readdirSync(join(SRC, 'algorithms', folder));
      const typescript = files.filter((file) => file.endsWith('.ts')).sort();
      expect([folder, typescript]).toEqual([
        folder,
        ['definition', 'memory', 'model'].map((role) => `${folder}.${role}.ts`),
      ]);
      // The acquire, its refund, its charge, its coalesced form, and one helper they share.
      const lua = files.filter((file) => file.endsWith('.lua'));
      expect([folder, lua.length <= 5, files.length]).toEqual([folder, true, 3 + lua.length]);
    }
  });

  it('no TypeScript file of src/ holds Redis commands: Lua lives in .lua files', () => {
    const withCommands = sourceFiles(SRC).filter((file) =>
      /redis\.call|redis\.pcall/.test(readFileSync(file, 'utf8')),
    );
    expect(withCommands.map((file) => relative(SRC, file))).toEqual([]);
  });
});

describe('exports', () => {
  const LEFT_EXPORTED = [
    // The declaration files need them: a definition's inferred type names them.
    'algorithms/define-algorithm.ts DefinedAlgorithm',
    'algorithms/quota-limit/quota-limit.memory.ts QuotaTwinState',
  ];
  const ROOT = resolve(SRC, '..');
  const EXPORTED =
    /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm;

  it('src/ exports no name that only its own file uses', () => {
    const readers = ['src', 'test', 'bench', 'sample-app/src', 'scripts']
      .flatMap((dir) => sourceFiles(join(ROOT, dir), /\.(ts|js)$/))
      .map((file) => [file, readFileSync(file, 'utf8')] as const);
    const lonely = sourceFiles(SRC).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      return [...text.matchAll(EXPORTED)]
        .map(([, name]) => name)
        .filter((name) => {
          const word = new RegExp(`\\b${name.replace('$', '\\$')}\\b`);
          return !readers.some(([other, source]) => other !== file && word.test(source));
        })
        .map((name) => `${relative(SRC, file)} ${name}`);
    });
    expect(lonely.filter((entry) => !LEFT_EXPORTED.includes(entry))).toEqual([]);
  });
});

describe('small files', () => {
  it('no TypeScript file of src/ passes 250 lines: small files, each doing one thing', () => {
    const tooLong = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .map((file) => [file, lineCount(readFileSync(join(SRC, file), 'utf8'))] as const)
      .filter(([, lines]) => lines > MAX_LINES)
      .map(([file, lines]) => `${file}: ${lines} lines`);
    expect(tooLong).toEqual([]);
  });
});
