/** Tests run against TypeScript sources: @swc/jest compiles with legacy decorators and
 * decorator metadata, and @typemcp/* resolves to packages/<name>/src so no build is needed. */
const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/examples'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', swcOptions] },
  moduleNameMapper: { '^@typemcp/([a-z-]+)$': '<rootDir>/packages/$1/src' },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testTimeout: 20000,
};
