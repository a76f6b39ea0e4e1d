'use strict';
/**
 * How the TypeScript sources are compiled when they run without a build: by jest, and by
 * child processes through runTs.js. Legacy decorators and decorator metadata are what the
 * framework relies on (tsx/esbuild cannot emit the metadata).
 */
module.exports = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
  swcrc: false,
  configFile: false,
};
