'use strict';
/**
 * Require hook that lets a child process run the TypeScript sources without a build, with the
 * same compilation and module mapping as jest:
 *
 *   node -r /path/to/test-support/runTs.js some/server.ts [args…]
 *
 * `.ts` files are compiled by @swc/core with legacy decorators and decorator metadata (which
 * tsx/esbuild cannot emit), and `@typemcp/<name>` resolves to packages/<name>/src/index.ts, so
 * a child process never loads a built copy of a class the test also holds.
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const { transformSync } = require('@swc/core');

const repoRoot = path.resolve(__dirname, '..');

const swcOptions = require('./swcOptions');

// Same pattern as jest's moduleNameMapper.
const WORKSPACE_PACKAGE = /^@typemcp\/([a-z-]+)(?:\/([a-z-]+))?$/;

function isInNodeModules(filename) {
  return filename.split(path.sep).includes('node_modules');
}

// Stack traces then point into the .ts sources through the inline source maps.
if (typeof process.setSourceMapsEnabled === 'function') process.setSourceMapsEnabled(true);

const fallbackTs = require.extensions['.ts'] || require.extensions['.js'];
require.extensions['.ts'] = function compileTypeScript(module, filename) {
  if (isInNodeModules(filename)) return fallbackTs(module, filename);
  const source = fs.readFileSync(filename, 'utf8');
  const { code } = transformSync(source, { ...swcOptions, filename, sourceFileName: filename });
  module._compile(code, filename);
};

const originalResolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveWorkspacePackage(request, parent, isMain, options) {
  const match = WORKSPACE_PACKAGE.exec(request);
  const target = match ? path.join(repoRoot, 'packages', match[1], 'src', match[2] ?? '', 'index.ts') : request;
  return originalResolveFilename.call(this, target, parent, isMain, options);
};
