/** Tests run against TypeScript sources: @swc/jest compiles them (options shared with child
 * processes), and @typemcp/* resolves to packages/<name>/src so no build is needed. */
const swcOptions = require('./test-support/swcOptions');
// Suites whose Debian package (redis-server, chromium) is missing here, announced loudly; none under CI=true.
const { suitesToSkip } = require('./scripts/test-services');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/templates', '<rootDir>/examples'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', swcOptions],
    // jose and oauth4webapi ship ES modules only; Node loads them with require(esm), jest needs them compiled.
    '/node_modules/(jose|oauth4webapi)/.+\\.js$': ['@swc/jest', swcOptions],
  },
  transformIgnorePatterns: ['/node_modules/(?!jose/|oauth4webapi/)'],
  moduleNameMapper: {
    '^@typemcp/([a-z-]+)$': '<rootDir>/packages/$1/src',
    // Subpath exports (`@typemcp/auth/testing`) map to a folder of the package's sources.
    '^@typemcp/([a-z-]+)/([a-z-]+)$': '<rootDir>/packages/$1/src/$2',
    // NodeNext-style sources (templates) import './x.js'; resolve it to './x.ts'.
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
  testPathIgnorePatterns: ['/node_modules/', ...suitesToSkip().map((suite) => `<rootDir>/${suite}`)],
  testTimeout: 20000,
};
