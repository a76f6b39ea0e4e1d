/**
 * The packages as a user gets them: `npm pack` of each (prepack builds it, so this works on a
 * fresh clone), and a project made to install them from those tarballs instead of a registry.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runOutside } from './outsideRepository';

const repoRoot = path.resolve(__dirname, '..');

export interface Tarball {
  file: string;
  name: string;
  files: string[];
}

/** Packs packages/<dir> for each dir into packDir; by dir. */
export function packPackages<Dir extends string>(dirs: readonly Dir[], packDir: string): Record<Dir, Tarball> {
  const output = runOutside('npm', ['pack', '--json', '--pack-destination', packDir, ...dirs.flatMap((dir) => ['-w', `packages/${dir}`])], repoRoot);
  const packed = JSON.parse(output.slice(output.indexOf('['), output.lastIndexOf(']') + 1)) as Array<{ name: string; filename: string; files: Array<{ path: string }> }>;
  const tarballs = {} as Record<Dir, Tarball>;
  for (const dir of dirs) {
    const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages', dir, 'package.json'), 'utf8')) as { name: string };
    const entry = packed.find((p) => p.name === manifest.name);
    if (!entry) throw new Error(`npm pack did not pack ${manifest.name}`);
    tarballs[dir] = { file: path.join(packDir, path.basename(entry.filename)), name: entry.name, files: entry.files.map((f) => f.path) };
  }
  return tarballs;
}

/**
 * Points a scaffolded project's @typemcp/* dependencies at the tarballs, for anything that
 * depends on them in turn too (@typemcp/testing and the CLI depend on @typemcp/client, packed
 * beside the others when not given), then installs it. A project with @typemcp/auth (made with
 * --sign-in) needs its tarball too.
 */
export function installFromTarballs(projectDir: string, tarballs: Record<'core' | 'testing' | 'cli', Tarball> & Partial<Record<'auth' | 'client', Tarball>>): void {
  const manifestPath = path.join(projectDir, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
  const local = (dir: 'core' | 'testing' | 'cli') => `file:${tarballs[dir].file}`;
  manifest.dependencies['@typemcp/core'] = local('core');
  if (manifest.dependencies['@typemcp/auth'] !== undefined) {
    if (tarballs.auth === undefined) throw new Error(`${projectDir} depends on @typemcp/auth: pack it too`);
    manifest.dependencies['@typemcp/auth'] = `file:${tarballs.auth.file}`;
  }
  const client = tarballs.client ?? packPackages(['client'], path.dirname(tarballs.core.file)).client;
  manifest.devDependencies['@typemcp/client'] = `file:${client.file}`;
  manifest.devDependencies['@typemcp/testing'] = local('testing');
  manifest.devDependencies['@typemcp/cli'] = local('cli');
  manifest.overrides = { '@typemcp/core': '$@typemcp/core', '@typemcp/client': '$@typemcp/client', '@typemcp/testing': '$@typemcp/testing' };
  fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
  runOutside('npm', ['install', '--prefer-offline'], projectDir);
}
