/** scripts/release: one version line for the published packages, and the manifests it publishes. */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..', '..');
const { bumpManifest, bumpChangelog } = require(path.join(root, 'scripts', 'release', 'version.js')) as {
  bumpManifest(manifest: Record<string, unknown>, version: string, published: boolean): Record<string, any>;
  bumpChangelog(text: string, version: string, date: string): string;
};
const { PUBLISHED } = require(path.join(root, 'scripts', 'release', 'packages.js')) as { PUBLISHED: string[] };

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
