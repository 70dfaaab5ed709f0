/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  // The sample app imports the package by name, as a user would; tests run it from source.
  moduleNameMapper: {
    '^nestjs-limiter$': '<rootDir>/src/index.ts',
    // mercurius's @fastify/static requires an ES-module-only package: see that file.
    '^content-disposition$': '<rootDir>/scripts/jest-content-disposition.js',
    '^nestjs-limiter/testing$': '<rootDir>/src/testing/index.ts',
  },
  testTimeout: 30000,
  reporters: ['default', '<rootDir>/scripts/jest-end-failed-runs.js'],
};
