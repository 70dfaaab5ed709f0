// The e2e suite against NestJS 10 (installed here by `npm ci` in .ci/nest10), run by .ci/run.
// Every @nestjs package, rxjs and reflect-metadata come from this directory, so the library
// (from src/, as in the main run) and the tests share one copy of each, at version 10.
const { join } = require('node:path');
const root = join(__dirname, '..', '..');
const base = require(join(root, 'jest.config.js'));
const nest10 = join(__dirname, 'node_modules');
const ENGINE_UNDER_FAULTS = [
  'burst',
  'cluster',
  'escalating-blocks',
  'flood-distinct-keys',
  'frozen-redis',
  'frozen-redis-load',
  'lease-faults',
  'overload-load',
  'pinned-app-bursts',
  'sentinel',
  'websocket-connection-slots',
];

module.exports = {
  ...base,
  rootDir: root,
  globals: { EXPECTED_NEST_MAJOR: 10 },
  testMatch: ['<rootDir>/test/e2e/**/*.spec.ts', '<rootDir>/test/readme/**/*.e2e.spec.ts'],
  // The packed-package test installs the root node_modules' Nest; @nestjs/graphql 13 and its
  // Apollo and Mercurius drivers require Nest 11 (quiet-denials starts Mercurius, on Fastify 5).
  // The long fault and load specs test the engine under stalls, kills and bursts, not Nest:
  // they run in `npm test`, and here would cost CI minutes for what NestJS 10 cannot change.
  testPathIgnorePatterns: [
    '/node_modules/',
    'packed-package',
    'graphql',
    'quiet-denials',
    ...ENGINE_UNDER_FAULTS.map((name) => `/test/e2e/${name}\\.e2e\\.spec\\.ts$`),
  ],
  // Type-checked in the main run; here only transpiled, which is faster.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
  moduleNameMapper: {
    ...base.moduleNameMapper,
    '^@nestjs/(common|core|testing|microservices|websockets|swagger|terminus|platform-[a-z.-]+)(/.*)?$': `${nest10}/@nestjs/$1$2`,
    '^(rxjs|reflect-metadata)(/.*)?$': `${nest10}/$1$2`,
  },
};
