import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Metafile } from 'esbuild';
import { snapshotBlobPath, snapshotEntrySource, snapshotPreloads } from '../../../src/commands/snapshot';

/**
 * A project with the framework's packages installed, as npm lays them out: ajv under
 * @typemcp/core's own node_modules (where a version conflict puts it).
 */
function fakeProject(): { root: string; entry: string; files: Record<string, string> } {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'typemcp-snapshot-unit-')));
  const files: Record<string, string> = {};
  const install = (dir: string, name: string, main: string): void => {
    const packageDir = path.join(dir, 'node_modules', ...name.split('/'));
    fs.mkdirSync(path.dirname(path.join(packageDir, main)), { recursive: true });
    fs.writeFileSync(path.join(packageDir, 'package.json'), JSON.stringify({ name, main }));
    fs.writeFileSync(path.join(packageDir, main), '');
    files[name] = path.join(packageDir, main);
  };
  for (const name of ['reflect-metadata', 'tsyringe', 'class-validator', 'class-transformer', '@typemcp/core']) install(root, name, 'dist/index.js');
  const coreDir = path.join(root, 'node_modules', '@typemcp', 'core');
  install(coreDir, 'ajv', 'dist/ajv.js');
  fs.writeFileSync(path.join(coreDir, 'node_modules', 'ajv', 'dist', '2020.js'), '');
  files['ajv/dist/2020'] = path.join(coreDir, 'node_modules', 'ajv', 'dist', '2020.js');
  install(coreDir, 'ajv-formats', 'dist/index.js');
  const entry = path.join(root, 'dist', 'main.js');
  fs.mkdirSync(path.dirname(entry));
  fs.writeFileSync(entry, '');
  return { root, entry, files };
}

/** Node's lookup for the fake layout: the nearest node_modules/<name> up the folders, then its main (or the path itself). */
function resolveIn(root: string): (name: string, from: string) => string {
  return (name, from) => {
    for (let dir = from; dir.startsWith(root); dir = path.dirname(dir)) {
      const candidate = path.join(dir, 'node_modules', ...name.split('/'));
      const manifest = path.join(candidate, 'package.json');
      if (fs.existsSync(manifest)) return path.join(candidate, (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { main: string }).main);
      if (fs.existsSync(`${candidate}.js`)) return `${candidate}.js`;
    }
    throw new Error(`Cannot find module '${name}'`);
  };
}

/** A metafile listing these files as bundled inputs, relative to the project like esbuild's. */
function metafileOf(root: string, files: string[]): Metafile {
  return { inputs: Object.fromEntries(files.map((file) => [path.relative(root, file), { bytes: 1, imports: [] }])), outputs: {} };
}

describe('snapshotBlobPath', () => {
  it('puts the blob beside the bundle', () => {
    expect(snapshotBlobPath('dist/bundle/server.js')).toBe('dist/bundle/server.blob');
    expect(snapshotBlobPath('out/app.cjs')).toBe('out/app.blob');
  });
});

describe('snapshotPreloads', () => {
  const project = fakeProject();
  afterAll(() => fs.rmSync(project.root, { recursive: true, force: true }));
  const order = ['reflect-metadata', 'tsyringe', 'class-validator', 'class-transformer', '@typemcp/core', 'ajv/dist/2020', 'ajv-formats'];
  const all = order.map((name) => project.files[name]!);

  it('loads the framework and what it loads on first use, in dependency order', () => {
    expect(snapshotPreloads(project.entry, metafileOf(project.root, [...all].reverse()), project.root, resolveIn(project.root))).toEqual(all);
  });

  it('leaves out what the bundle does not contain', () => {
    const withoutTransformer = all.filter((file) => file !== project.files['class-transformer']);
    expect(snapshotPreloads(project.entry, metafileOf(project.root, withoutTransformer), project.root, resolveIn(project.root))).toEqual(withoutTransformer);
    // Without the framework, nothing it loads lazily either.
    const withoutCore = all.filter((file) => file !== project.files['@typemcp/core']);
    expect(snapshotPreloads(project.entry, metafileOf(project.root, withoutCore), project.root, resolveIn(project.root))).toEqual(all.slice(0, 4));
  });

  it("leaves out ajv's compiler when the validators are precompiled", () => {
    expect(snapshotPreloads(project.entry, metafileOf(project.root, all), project.root, resolveIn(project.root), { ajv: false })).toEqual(all.slice(0, 5));
  });
});

describe('snapshotEntrySource', () => {
  it('loads the preloads at build time and the application only when a process starts', () => {
    const source = snapshotEntrySource('/app/dist/main.js', ['/app/node_modules/a.js', '/app/node_modules/b.js'], 'app.cjs');
    const lines = source.split('\n');
    expect(lines.slice(1, 3)).toEqual(['require("/app/node_modules/a.js");', 'require("/app/node_modules/b.js");']);
    const main = source.slice(source.indexOf('setDeserializeMainFunction'));
    expect(main).toContain('require("/app/dist/main.js");');
    expect(source.indexOf('require("/app/dist/main.js")')).toBeGreaterThan(source.indexOf('setDeserializeMainFunction'));
    // The bundle's own name, in whatever folder the blob is.
    expect(main).toContain('__filename = path.join(path.dirname(path.resolve(blob)), "app.cjs");');
  });
});
