#!/usr/bin/env node
// prepack of each package: removes files from dist/ whose source in src/ no longer exists
// (a moved or deleted module), so a tarball packed from a working tree ships only what the
// current sources build. Files that have a source are left alone: another build may be
// reading them.
const fs = require('node:fs');
const path = require('node:path');

const packageDir = process.cwd();
const dist = path.join(packageDir, 'dist');
const src = path.join(packageDir, 'src');
const OUTPUT = /\.(d\.ts\.map|d\.ts|js\.map|js)$/;

function prune(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      prune(full);
      if (fs.readdirSync(full).length === 0) fs.rmdirSync(full);
      continue;
    }
    if (!OUTPUT.test(entry.name)) continue;
    const source = path.join(src, path.relative(dist, full)).replace(OUTPUT, '.ts');
    if (!fs.existsSync(source)) fs.rmSync(full);
  }
}

prune(dist);
