import { join } from 'node:path';

/** `npm run test:fast` picks the suites that start no process, by what they import. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fastConfig = require(join(__dirname, '..', '..', 'jest.fast.config.js'));
const fast: string[] = fastConfig.testMatch.map((glob: string) => glob.replace('<rootDir>/', ''));

describe('the fast loop (jest.fast.config.js)', () => {
  it('holds the unit suites and the suites on the memory store or the testing kit', () => {
    expect(fast).toEqual(
      expect.arrayContaining([
        'test/unit/architecture.spec.ts',
        'test/e2e/testing-kit.e2e.spec.ts',
        'test/e2e/throttler-headers-and-skips.e2e.spec.ts',
        'test/types/type-checks.spec.ts',
      ]),
    );
  });

  it('leaves out every suite that starts redis-server, a child process or a browser', () => {
    for (const slow of [
      'test/integration/engine.spec.ts', // redis-server, through its helper
      'test/integration/peek-reset.spec.ts', // redis-server, through a helper's helper
      'test/e2e/cluster.e2e.spec.ts', // a Redis Cluster
      'test/e2e/sentinel.e2e.spec.ts', // Sentinel
      'test/e2e/admin-page.browser.e2e.spec.ts', // Chromium
      'test/unit/failed-run-ends.spec.ts', // a child jest
      'test/unit/package-contents.spec.ts', // reads lib/, which the build writes
    ]) {
      expect(fast).not.toContain(slow);
    }
    expect(fast.every((path) => path.endsWith('.spec.ts'))).toBe(true);
  });
});
