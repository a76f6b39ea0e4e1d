/** Jest runs the TypeScript sources through swc, which keeps the decorator metadata TypeMCP reads. */
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
// Packages under @typemcp/auth that ship ES modules only: Node loads them with require(esm),
// jest needs them compiled to CommonJS.
const ES_MODULES_ONLY = ['jose', 'oauth4webapi'];

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  transform: {
    '^.+\\.ts$': swc,
    [`/node_modules/(${ES_MODULES_ONLY.join('|')})/.+\\.js$`]: swc,
  },
  transformIgnorePatterns: [`/node_modules/(?!(${ES_MODULES_ONLY.join('|')})/)`],
  // Sources import './x.js' (NodeNext style); the test run resolves them to './x.ts'.
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
};
