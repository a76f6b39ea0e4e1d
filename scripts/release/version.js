#!/usr/bin/env node
// One version line for every published package: `node scripts/release/version.js 0.2.0`
// sets the version of each package in scripts/release/packages.js, the ranges by which they,
// the template and the examples depend on one another, opens the CHANGELOG's "Unreleased"
// section as that version, and brings package-lock.json up to date.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { PUBLISHED } = require('./packages');

const ROOT = path.resolve(__dirname, '..', '..');
const VERSION = /^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/;

/** Is this the name of a package of this line? */
function ours(name) {
  return name === 'create-typemcp' || name.startsWith('@typemcp/');
}

/**
 * A package.json at `version`: its own version when it is published, and every dependency on a
 * package of the line: exact in `dependencies` and `devDependencies` (released together), `^` in
 * `peerDependencies` (the user's copy of core may move ahead).
 */
function bumpManifest(manifest, version, published) {
  const next = { ...manifest };
  if (published) next.version = version;
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
    if (!manifest[field]) continue;
    next[field] = { ...manifest[field] };
    for (const name of Object.keys(next[field])) {
      if (ours(name)) next[field][name] = field === 'peerDependencies' ? `^${version}` : version;
    }
  }
  return next;
}

/** The CHANGELOG with its "Unreleased" section named `version` and a new empty one above it. */
function bumpChangelog(text, version, date) {
  const heading = '## Unreleased';
  if (!text.includes(heading)) throw new Error('CHANGELOG.md has no "## Unreleased" section');
  if (text.includes(`## ${version} `) || text.includes(`## ${version}\n`)) throw new Error(`CHANGELOG.md already has a section for ${version}`);
  return text.replace(heading, `${heading}\n\n## ${version} (${date})`);
}

function main() {
  const [version] = process.argv.slice(2);
  if (!version || !VERSION.test(version)) {
    process.stderr.write('usage: node scripts/release/version.js <version>   (e.g. 0.2.0 or 0.2.0-rc.1)\n');
    process.exit(2);
  }
  const manifests = [
    ...PUBLISHED.map((dir) => ({ file: path.join(ROOT, 'packages', dir, 'package.json'), published: true })),
    ...fs.readdirSync(path.join(ROOT, 'templates')).map((dir) => ({ file: path.join(ROOT, 'templates', dir, 'package.json'), published: false })),
    ...fs.readdirSync(path.join(ROOT, 'examples')).map((dir) => ({ file: path.join(ROOT, 'examples', dir, 'package.json'), published: false })),
  ].filter(({ file }) => fs.existsSync(file));
  for (const { file, published } of manifests) {
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file, `${JSON.stringify(bumpManifest(manifest, version, published), null, 2)}\n`);
  }
  const changelog = path.join(ROOT, 'CHANGELOG.md');
  fs.writeFileSync(changelog, bumpChangelog(fs.readFileSync(changelog, 'utf8'), version, new Date().toISOString().slice(0, 10)));
  execFileSync('npm', ['run', 'lockfile'], { cwd: ROOT, stdio: 'inherit' });
  process.stderr.write(`version ${version}: ${manifests.length} package.json files, CHANGELOG.md and package-lock.json; review, commit, tag v${version}\n`);
}

module.exports = { bumpManifest, bumpChangelog };

if (require.main === module) main();
