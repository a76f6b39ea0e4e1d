/** scripts/release: one version line for the published packages, and the manifests it publishes. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { parse as parseYaml } from 'yaml';

const root = path.resolve(__dirname, '..', '..', '..');
const { bumpManifest, bumpChangelog } = require(path.join(root, 'scripts', 'release', 'version.js')) as {
  bumpManifest(manifest: Record<string, unknown>, version: string, published: boolean): Record<string, any>;
  bumpChangelog(text: string, version: string, date: string): string;
};
const { PUBLISHED } = require(path.join(root, 'scripts', 'release', 'packages.js')) as { PUBLISHED: string[] };
const registry = require(path.join(root, 'scripts', 'release', 'registry.js')) as {
  parseOptions(argv: string[], env?: Record<string, string | undefined>): { mode: string; port?: number; storage?: string; publish?: boolean };
  verdaccioConfig(dir: string, port: number, upstream: string): string;
};

describe('the version line', () => {
  it('moves a published package and its ranges on the line together, and leaves other ranges alone', () => {
    const cli = { name: '@typemcp/cli', version: '0.1.0', dependencies: { '@typemcp/testing': '0.1.0', esbuild: '0.28.2' }, peerDependencies: { '@typemcp/core': '^0.1.0' } };
    expect(bumpManifest(cli, '0.2.0', true)).toEqual({
      name: '@typemcp/cli',
      version: '0.2.0',
      dependencies: { '@typemcp/testing': '0.2.0', esbuild: '0.28.2' },
      peerDependencies: { '@typemcp/core': '^0.2.0' },
    });
    const example = { name: '@typemcp/example-weather', version: '0.1.0', private: true, dependencies: { '@typemcp/core': '0.1.0' } };
    expect(bumpManifest(example, '0.2.0', false)).toEqual({ ...example, dependencies: { '@typemcp/core': '0.2.0' } });
  });

  it('names the Unreleased section of the CHANGELOG after the version, under a new empty one', () => {
    expect(bumpChangelog('# Changelog\n\n## Unreleased\n\n### Added\n\n- x\n', '0.2.0', '2026-12-01')).toBe('# Changelog\n\n## Unreleased\n\n## 0.2.0 (2026-12-01)\n\n### Added\n\n- x\n');
    expect(() => bumpChangelog('# Changelog\n', '0.2.0', '2026-12-01')).toThrow('CHANGELOG.md has no "## Unreleased" section');
  });

  it('has every package of the repository on one version, in an order that publishes dependencies first', () => {
    const manifests = PUBLISHED.map((dir) => JSON.parse(fs.readFileSync(path.join(root, 'packages', dir, 'package.json'), 'utf8')) as Record<string, any>);
    expect(new Set(manifests.map((m) => m.version)).size).toBe(1);
    expect(fs.readdirSync(path.join(root, 'packages')).sort()).toEqual([...PUBLISHED].sort());
    const position = new Map(manifests.map((m, i) => [m.name as string, i]));
    manifests.forEach((manifest, i) => {
      for (const field of ['dependencies', 'peerDependencies']) {
        for (const name of Object.keys(manifest[field] ?? {})) {
          if (position.has(name)) expect({ package: manifest.name, dependsOn: name, before: position.get(name)! < i }).toEqual({ package: manifest.name, dependsOn: name, before: true });
        }
      }
      // What npm needs to publish it, and a user to install and use it.
      expect({ name: manifest.name, access: manifest.publishConfig?.access, license: manifest.license, files: Array.isArray(manifest.files), node: manifest.engines?.node }).toEqual({
        name: manifest.name,
        access: 'public',
        license: 'MIT',
        files: true,
        node: expect.stringMatching(/^>=20(\.\d+)*$/),
      });
      expect(fs.existsSync(path.join(root, 'packages', PUBLISHED[i], 'LICENSE'))).toBe(true);
    });
  });
});

describe('the local registry of npm run release:local', () => {
  const storage = path.join(root, '.conformance', 'registry');

  it('listens on a stable port and keeps its storage in .conformance/registry between runs, both overridable', () => {
    expect(registry.parseOptions([], {})).toEqual({ mode: 'serve', port: 4873, storage, publish: true });
    expect(registry.parseOptions(['--port', '5000', '--storage', '/tmp/reg'], {})).toEqual({ mode: 'serve', port: 5000, storage: path.resolve('/tmp/reg'), publish: true });
    expect(registry.parseOptions([], { RELEASE_PORT: '4999', RELEASE_STORAGE: '/srv/reg' })).toEqual({ mode: 'serve', port: 4999, storage: path.resolve('/srv/reg'), publish: true });
    expect(registry.parseOptions(['--no-publish'], {})).toMatchObject({ mode: 'serve', publish: false });
    expect(registry.parseOptions(['--clean'], {})).toMatchObject({ mode: 'clean', storage });
  });

  it('checks the release path in a throwaway registry on a free port, as before', () => {
    expect(registry.parseOptions(['--check'], { RELEASE_PORT: '4999' })).toEqual({ mode: 'check', port: 0, storage: undefined, publish: true });
    expect(() => registry.parseOptions(['--check', '--storage', '/tmp/reg'], {})).toThrow('--check publishes into a throwaway registry');
  });

  it('refuses what it does not know, saying why', () => {
    expect(() => registry.parseOptions(['--port', '99999'], {})).toThrow('--port must be a port number (1-65535), not "99999"');
    expect(() => registry.parseOptions(['--port'], {})).toThrow('--port needs a value');
    expect(() => registry.parseOptions(['--colour'], {})).toThrow('unknown option --colour');
    expect(() => registry.parseOptions([], { RELEASE_PORT: 'abc' })).toThrow('RELEASE_PORT must be a port number');
  });

  it("keeps verdaccio's packages and users in the storage folder, and proxies the rest upstream", () => {
    const config = parseYaml(registry.verdaccioConfig('/data/reg', 4873, 'https://registry.npmjs.org/'));
    expect(config).toMatchObject({
      storage: '/data/reg/storage',
      auth: { htpasswd: { file: '/data/reg/htpasswd' } },
      uplinks: { upstream: { url: 'https://registry.npmjs.org/' } },
      listen: '127.0.0.1:4873',
      packages: { '@typemcp/*': { access: '$all', publish: '$authenticated' }, 'create-typemcp': { publish: '$authenticated' }, '**': { proxy: 'upstream' } },
    });
  });

  it('says its options through local.sh, and exits with 2 on a bad one before starting anything', () => {
    const help = spawnSync('bash', [path.join(root, 'scripts', 'release', 'local.sh'), '--help'], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--port N          the port on 127.0.0.1 (default 4873, or RELEASE_PORT)');
    expect(help.stdout).toContain('--clean           remove the storage, then exit');
    const bad = spawnSync('bash', [path.join(root, 'scripts', 'release', 'local.sh'), '--port', 'x'], { encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('release-local: --port must be a port number');
  });

  it('removes the storage with --clean, and nothing else', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-registry-'));
    try {
      fs.mkdirSync(path.join(dir, 'reg', 'storage', '@typemcp'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'keep'), '');
      const clean = spawnSync('bash', [path.join(root, 'scripts', 'release', 'local.sh'), '--clean', '--storage', path.join(dir, 'reg')], { encoding: 'utf8' });
      expect(clean.status).toBe(0);
      expect(fs.readdirSync(dir)).toEqual(['keep']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
