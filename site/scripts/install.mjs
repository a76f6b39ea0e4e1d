// Installs the site's own dependencies (npm ci in site/, from site/package-lock.json) unless
// site/node_modules already holds exactly that lockfile. Plain Node: it runs before them.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const site = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const lock = readFileSync(path.join(site, 'package-lock.json'));
const stamp = path.join(site, 'node_modules', '.installed-lock');
const want = createHash('sha256').update(lock).digest('hex');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
  console.log('site: npm ci (its own dependencies: VitePress, TypeDoc)');
  // No install scripts: esbuild and rollup come as prebuilt packages for the platform.
  execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund', '--workspaces=false'], { cwd: site, stdio: 'inherit' });
  writeFileSync(stamp, want);
}
