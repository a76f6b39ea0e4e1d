// The public entry points of the packages, read from each packages/*/package.json: every
// subpath it exports (`.`, `./build`, `./testing`) and the source file behind it
// (src/index.ts, src/build/index.ts, …). `@typemcp/core` in Workers and browsers
// (src/index.web.ts) exports a subset of its Node entry.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function entryPoints() {
  const found = [];
  for (const dir of readdirSync(path.join(repo, 'packages')).sort()) {
    const manifestFile = path.join(repo, 'packages', dir, 'package.json');
    if (!existsSync(manifestFile)) continue;
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    for (const subpath of Object.keys(manifest.exports ?? { '.': {} })) {
      if (subpath === './package.json') continue;
      const file = path.posix.join('packages', dir, 'src', subpath === '.' ? '' : subpath.slice(2), 'index.ts');
      found.push({ specifier: `${manifest.name}${subpath.slice(1)}`, file });
    }
  }
  return found;
}

export const ENTRY_POINTS = entryPoints();
