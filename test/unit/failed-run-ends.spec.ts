import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const REPORTER = '<rootDir>/scripts/jest-end-failed-runs.js';
/** The fixtures' runs wait this long after their end, not the default 10 s. */
const GRACE_MS = 1_000;

/** The project's configuration, its reporter given a short grace. */
function projectConfig(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require(join(ROOT, 'jest.config.js'));
  const reporters = (config.reporters as unknown[]).map((reporter) =>
    reporter === REPORTER ? [REPORTER, { graceMs: GRACE_MS }] : reporter,
  );
  expect(reporters).toContainEqual([REPORTER, { graceMs: GRACE_MS }]);
  return JSON.stringify({ ...config, rootDir: ROOT, reporters });
}

/** Runs jest, with the project's configuration, on one fixture: its exit code, time and stderr. */
function runFixture(fixture: string): Promise<{ code: number | null; ms: number; stderr: string }> {
  const started = performance.now();
  const jest = spawn(
    process.execPath,
    [
      require.resolve('jest/bin/jest'),
      '--config',
      projectConfig(),
      '--rootDir',
      ROOT,
      '--roots',
      '<rootDir>/test/fixtures',
      '--testMatch',
      `**/${fixture}`,
    ],
    { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  jest.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => jest.kill('SIGKILL'), 60_000);
  return new Promise((exited) =>
    jest.on('exit', (code) => {
      clearTimeout(killer);
      exited({ code, ms: performance.now() - started, stderr });
    }),
  );
}

describe('a run with a failed test', () => {
  it('ends with exit code 1 even when the test left a server listening', async () => {
    const { code, ms, stderr } = await runFixture('fails-with-open-server.fixture.ts');
    expect(code).toBe(1);
    expect(ms).toBeLessThan(55_000);
    expect(stderr).toContain('A failed test left handles open: the run ends 1000 ms after it.');
  }, 70_000);
});

describe('a run that passed but left a handle open', () => {
  it('names what it left open and ends with exit code 0', async () => {
    const { code, ms, stderr } = await runFixture('passes-with-open-server.fixture.ts');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(55_000);
    expect(stderr).toMatch(
      /still alive 1000 ms after it, held by:\n {2}- server listening on \{"address":"127\.0\.0\.1"/,
    );
  }, 70_000);
});
