import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** Runs jest, with the project's configuration, on the one fixture: its exit code and time. */
function runFixture(): Promise<{ code: number | null; ms: number }> {
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
      '**/fails-with-open-server.fixture.ts',
    ],
    { cwd: ROOT, stdio: 'ignore' },
  );
  const killer = setTimeout(() => jest.kill('SIGKILL'), 60_000);
  return new Promise((exited) =>
    jest.on('exit', (code) => {
      clearTimeout(killer);
      exited({ code, ms: performance.now() - started });
    }),
  );
}

describe('a run with a failed test', () => {
  it('ends with exit code 1 even when the test left a server listening', async () => {
    const { code, ms } = await runFixture();
    expect(code).toBe(1);
    expect(ms).toBeLessThan(55_000);
  }, 70_000);
});
