import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Runs jest, with the project's configuration, on one fixture: its exit code, time and stderr. */
function runFixture(fixture: string): Promise<{ code: number | null; ms: number; stderr: string }> {
  const started = performance.now();
  const jest = spawn(
    process.execPath,
    [
      require.resolve('jest/bin/jest'),
      '--config',
      join(ROOT, 'jest.config.js'),
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
    const { code, ms } = await runFixture('fails-with-open-server.fixture.ts');
    expect(code).toBe(1);
    expect(ms).toBeLessThan(55_000);
  }, 70_000);
});

describe('a run that passed but left a handle open', () => {
  it('names what it left open and ends with exit code 0', async () => {
    const { code, ms, stderr } = await runFixture('passes-with-open-server.fixture.ts');
    expect(code).toBe(0);
    expect(ms).toBeLessThan(55_000);
    expect(stderr).toMatch(
      /still alive 10000 ms after it, held by:\n {2}- server listening on \{"address":"127\.0\.0\.1"/,
    );
  }, 70_000);
});
