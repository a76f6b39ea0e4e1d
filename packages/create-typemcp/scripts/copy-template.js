#!/usr/bin/env node
// prepack: puts templates/default inside the package as template/ (the runtime overlays of
// templates/runtimes as template-runtimes/, the sign-in overlay templates/signin as
// template-signin/, the overlays of a project without the examples templates/minimal as
// template-minimal/), since a published package cannot reach the repository's templates
// folder. postpack (--remove) takes them out again so the repository's own templates are the
// ones used during development.
const fs = require('node:fs');
const path = require('node:path');

const packageDir = path.join(__dirname, '..');
const target = path.join(packageDir, 'template');
const runtimesTarget = path.join(packageDir, 'template-runtimes');
const signInTarget = path.join(packageDir, 'template-signin');
const minimalTarget = path.join(packageDir, 'template-minimal');
for (const dir of [target, runtimesTarget, signInTarget, minimalTarget]) fs.rmSync(dir, { recursive: true, force: true });
if (process.argv.includes('--remove')) return;
const templates = path.join(packageDir, '..', '..', 'templates');
fs.cpSync(path.join(templates, 'runtimes'), runtimesTarget, { recursive: true });
const skipped = new Set(['node_modules', 'dist', 'coverage']);
const filter = (file) => !skipped.has(path.basename(file)) && !file.endsWith('.tsbuildinfo');
fs.cpSync(path.join(templates, 'default'), target, { recursive: true, filter });
fs.cpSync(path.join(templates, 'signin'), signInTarget, { recursive: true, filter });
fs.cpSync(path.join(templates, 'minimal'), minimalTarget, { recursive: true, filter });
