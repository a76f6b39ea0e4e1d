#!/usr/bin/env node
// prepack: puts templates/default inside the package as template/ (and the runtime overlays of
// templates/runtimes as template-runtimes/), since a published package
// cannot reach the repository's templates folder. postpack (--remove) takes it out again so
// the repository's own template is the one used during development.
const fs = require('node:fs');
const path = require('node:path');

const packageDir = path.join(__dirname, '..');
const target = path.join(packageDir, 'template');
const runtimesTarget = path.join(packageDir, 'template-runtimes');
fs.rmSync(target, { recursive: true, force: true });
fs.rmSync(runtimesTarget, { recursive: true, force: true });
if (process.argv.includes('--remove')) return;
fs.cpSync(path.join(packageDir, '..', '..', 'templates', 'runtimes'), runtimesTarget, { recursive: true });

const source = path.join(packageDir, '..', '..', 'templates', 'default');
const skipped = new Set(['node_modules', 'dist', 'coverage']);
fs.cpSync(source, target, {
  recursive: true,
  filter: (file) => !skipped.has(path.basename(file)) && !file.endsWith('.tsbuildinfo'),
});
