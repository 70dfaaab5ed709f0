import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * The package as a user gets it, as the README's Install says: `npm pack` on a checkout
 * without `lib/` (its `prepack` script builds it), installed from the tarball into a fresh
 * app whose other dependencies are links to this repository's node_modules, so no network
 * is needed. The app compiles against the
 * published typings (root and `nestjs-limiter/testing`, with both module resolutions) and
 * runs a guarded route.
 */
const ROOT = join(__dirname, '..', '..');
const APP_DEPENDENCIES = [
  '@nestjs/common',
  '@nestjs/core',
  '@nestjs/platform-express',
  'reflect-metadata',
  'rxjs',
  'ioredis',
  'lru-cache',
  '@types/node',
];

const MAIN = `
import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CountLimit,
  KeyedOptions,
  LimiterCacheOptions,
  RateLimiterFactory,
  RateLimiterModule,
  RateLimiterModuleAsyncOptions,
} from 'nestjs-limiter';
import { ManualClock, createTestingStore } from 'nestjs-limiter/testing';

const cache: LimiterCacheOptions = { max: 100 };
const keyed: KeyedOptions = { key: 'k' };
const asyncOptions: RateLimiterModuleAsyncOptions = { useFactory: () => ({ cache }) };

@Controller()
class HelloController {
  @Get('hello')
  @CountLimit({ limit: 1, period: 60 })
  hello() {
    return 'hi';
  }
}

@Module({ imports: [RateLimiterModule.forRootAsync(asyncOptions)], controllers: [HelloController] })
class AppModule {}

async function main() {
  const app = await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, '127.0.0.1');
  const url = 'http://127.0.0.1:' + app.getHttpServer().address().port + '/hello';
  const statuses = [(await fetch(url)).status, (await fetch(url)).status];
  let stack = '';
  try {
    app.get(RateLimiterFactory).rateLimiter({ ...keyed, key: '' });
  } catch (error) {
    stack = (error as Error).stack ?? '';
  }
  const clock = new ManualClock(0);
  const store = createTestingStore({ clock });
  clock.advance(5);
  await app.close();
  console.log(JSON.stringify({ statuses, stack, now: clock.now(), cleared: typeof store.clear }));
}
void main();
`;

function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the packed package in a fresh app', () => {
  let dir: string;
  let app: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-pack-'));
    app = join(dir, 'app');
    rmSync(join(ROOT, 'lib'), { recursive: true, force: true });
    const output = run('npm', ['pack', '--json', '--pack-destination', dir], ROOT);
    // `prepack` prints the build's own output before the JSON.
    const [packed] = JSON.parse(output.slice(output.indexOf('[\n')));
    mkdirSync(join(app, 'node_modules', '@nestjs'), { recursive: true });
    mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
    const dependencies: Record<string, string> = {};
    for (const name of APP_DEPENDENCIES) {
      const target = realpathSync(join(ROOT, 'node_modules', name));
      symlinkSync(target, join(app, 'node_modules', name), 'dir');
      dependencies[name] = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')).version;
    }
    writeFileSync(
      join(app, 'package.json'),
      JSON.stringify({ name: 'app', version: '1.0.0', private: true, dependencies }),
    );
    // The links already satisfy every dependency: npm only unpacks the tarball, offline.
    // Scripts stay off here, or npm would run the linked checkouts' own; a real install, with
    // scripts on, is .ci/nest12/run's, and nothing of the package may run or warn there.
    run(
      'npm',
      [
        'install',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--legacy-peer-deps',
        join(dir, packed.filename),
      ],
      app,
    );
    mkdirSync(join(app, 'src'));
    writeFileSync(join(app, 'src', 'main.ts'), MAIN);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('installs the tarball with its LICENSE, lib and lib/testing, and no src or test', () => {
    const installed = join(app, 'node_modules', 'nestjs-limiter');
    expect(readFileSync(join(installed, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    const files = run('find', ['.', '-type', 'f'], installed).split('\n');
    expect(files).toEqual(expect.arrayContaining(['./lib/index.js', './lib/testing/index.d.ts']));
    expect(files.filter((file) => /^\.\/(src|test)\//.test(file))).toEqual([]);
  });

  it('ships a package.json with no scripts, so installing it runs and announces none', () => {
    const installed = join(app, 'node_modules', 'nestjs-limiter');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    const source = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const repositoryOnly = /^(scripts|devDependencies|overrides)$/;
    expect(Object.keys(manifest).filter((field) => repositoryOnly.test(field))).toEqual([]);
    // What a consumer reads is there as the repository has it.
    for (const field of ['name', 'version', 'main', 'types', 'exports', 'typesVersions'])
      expect([field, manifest[field]]).toEqual([field, source[field]]);
    expect(manifest.dependencies).toEqual(source.dependencies);
    expect(manifest.peerDependencies).toEqual(source.peerDependencies);
    // The checkout's own package.json is put back after the pack.
    expect(source.scripts.prepack).toMatch(/npm run build/);
  });

  it('ships every file the README links to, so the links work in the installed package', () => {
    const installed = join(app, 'node_modules', 'nestjs-limiter');
    const readme = readFileSync(join(installed, 'README.md'), 'utf8').replace(
      /^```\w*\n[\s\S]*?^```$/gm,
      '',
    );
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((match) => match[1].split('#')[0])
      .filter((target) => target !== '' && !/^[a-z]+:/.test(target));
    expect(targets).toEqual(expect.arrayContaining(['docs/options.md', 'LICENSE']));
    const files = new Set(run('find', ['.', '-type', 'f'], installed).split('\n'));
    expect(targets.filter((target) => !files.has(`./${target}`))).toEqual([]);
  });

  it.each(['node16', 'node10'])(
    'compiles against the published typings (moduleResolution %s) and runs a guarded route',
    (resolution) => {
      const compilerOptions = {
        module: resolution === 'node16' ? 'node16' : 'commonjs',
        moduleResolution: resolution,
        target: 'es2022',
        strict: true,
        experimentalDecorators: true,
        emitDecoratorMetadata: true,
        skipLibCheck: true,
        types: ['node'],
        outDir: 'dist',
        rootDir: 'src',
      };
      writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions }));
      const tsc = join(dirname(require.resolve('typescript/package.json')), 'bin', 'tsc');
      run('node', [tsc, '-p', 'tsconfig.json'], app);
      const output = run('node', ['--enable-source-maps', 'dist/main.js'], app);
      const result = JSON.parse(output.trim().split('\n').pop()!);
      expect(result.statuses).toEqual([200, 429]);
      expect([result.now, result.cleared]).toEqual([5, 'function']);
      // The published source maps carry their sources: the stack names the TypeScript line.
      expect(result.stack).toMatch(/option 'key' must be a non-empty string/);
      expect(result.stack).toMatch(/src\/limiter\/rate-limiter\.factory\.ts:\d+:\d+/);
    },
    60_000,
  );

  it('every published source map carries its source text', () => {
    const installed = join(app, 'node_modules', 'nestjs-limiter');
    const maps = run('find', ['lib', '-name', '*.js.map'], installed).trim().split('\n');
    expect(maps.length).toBeGreaterThan(40);
    for (const map of maps) {
      const { sources, sourcesContent } = JSON.parse(readFileSync(join(installed, map), 'utf8'));
      expect([map, sourcesContent?.length]).toEqual([map, sources.length]);
    }
  });
});
