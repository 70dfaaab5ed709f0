import { readFileSync } from 'node:fs';

/** Which NestJS the e2e suite runs on: 11 in `npm test`, 10 and 12 in CI (.ci/nest10, .ci/nest12). */
const expectedMajor = (globalThis as { EXPECTED_NEST_MAJOR?: number }).EXPECTED_NEST_MAJOR ?? 11;

describe('NestJS under test', () => {
  it.each(['common', 'core', 'testing', 'platform-express', 'platform-fastify'])(
    '@nestjs/%s is the expected major version',
    (name) => {
      const manifest = require.resolve(`@nestjs/${name}/package.json`);
      const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
      expect(Number(version.split('.')[0])).toBe(expectedMajor);
    },
  );
});
