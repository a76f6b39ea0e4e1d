import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support';

/**
 * What the README, the guides and the reference say of the repository and of the options,
 * checked against the repository and the sources: a path that moved, a package added, an
 * option of listen left out of its table fails here.
 */
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');
const json = (file: string) => JSON.parse(read(file)) as Record<string, unknown>;

/** The fields an interface of a source file declares (`  name?: …` at its first level). */
function fieldsOf(file: string, name: string): string[] {
  const source = read(file);
  const start = source.indexOf(`export interface ${name} `);
  if (start < 0) throw new Error(`${file} declares no ${name}`);
  const body = source.slice(start, source.indexOf('\n}', start));
  return [...body.matchAll(/^ {2}(?:readonly )?(\w+)\??:/gm)].map((match) => match[1]);
}

/** The first column of the table under a heading of a markdown file, without backquotes, each cell split at its commas. */
function tableNames(file: string, heading: string): string[] {
  const text = read(file);
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${file} has no heading ${heading}`);
  const rows = text.slice(start).split('\n## ')[0].split('\n').filter((line) => line.startsWith('| `'));
  return rows.flatMap((row) => row.split('|')[1].split(',').map((cell) => cell.trim().replace(/`/g, '')));
}

describe('the README', () => {
  it('names the official schemas where they are, for every version', () => {
    const readme = read('README.md');
    const named = /`([\w/-]+)\/<version>\/schema\.json`/.exec(readme);
    expect(named?.[1]).toBe('packages/testing/schemas');
    const versions = fs.readdirSync(path.join(repoRoot, named![1])).filter((entry) => /^\d{4}-\d{2}-\d{2}$/.test(entry));
    expect(versions.length).toBeGreaterThan(0);
    for (const version of versions) expect(fs.existsSync(path.join(repoRoot, named![1], version, 'schema.json'))).toBe(true);
  });

  it('says how to run a subset of the tests and what a run prints at its end', () => {
    const readme = read('README.md');
    expect(readme).toContain('`npm test --\npackages/guards`');
    expect(readme).toContain('`Test Suites: … passed, … total`');
    expect(readme).toContain('/tmp/typemcp-e2e-*');
  });

  it('says that npx typemcp is the repository\'s CLI once built, which postbuild links', () => {
    expect(read('README.md')).toContain('After `npm run build`, `npx typemcp` is the repository\'s own CLI');
    const scripts = json('package.json').scripts as Record<string, string>;
    expect(scripts.postbuild).toBe('npm rebuild @typemcp/cli create-typemcp --ignore-scripts');
    const cli = json('packages/cli/package.json') as { name: string; bin: Record<string, string> };
    expect(cli.name).toBe('@typemcp/cli');
    expect(Object.keys(cli.bin)).toEqual(['typemcp']);
  });
});

describe('allowScripts (npm 11)', () => {
  /** The packages of the lockfile with install scripts, by name. */
  const withScripts = Object.entries((json('package-lock.json') as { packages: Record<string, { hasInstallScript?: boolean }> }).packages)
    .filter(([, entry]) => entry.hasInstallScript)
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .sort();

  it('covers every dependency with an install script, in the repository and in the project template', () => {
    expect(withScripts).toEqual(expect.arrayContaining(['@swc/core', 'esbuild']));
    for (const manifest of ['package.json', 'templates/default/package.json']) {
      const allowed = json(manifest).allowScripts as Record<string, boolean>;
      expect(Object.keys(allowed).sort()).toEqual(withScripts);
      expect(Object.values(allowed).every((value) => value === true)).toBe(true);
    }
  });
});

describe('the guides and the reference', () => {
  it('the releasing guide names every published package', () => {
    const { PUBLISHED } = require(path.join(repoRoot, 'scripts', 'release', 'packages.js')) as { PUBLISHED: string[] };
    const guide = read('docs/guides/releasing.md');
    for (const folder of PUBLISHED) {
      const { name } = json(`packages/${folder}/package.json`) as { name: string };
      expect(guide).toContain(`\`${name}\``);
    }
    expect(PUBLISHED).toEqual(expect.arrayContaining(['proxy', 'openapi', 'guards']));
  });

  it('the resources guide says that ResourceNotFound reaches 2026-07-28 clients as -32602', () => {
    const guide = read('docs/guides/resources.md');
    expect(guide).toContain('A 2026-07-28 client gets it as `-32602` (Invalid params)');
    expect(guide).toContain('`-32002` `Resource not found: <uri>` with `data: { uri }` (`-32602` at 2026-07-28)');
  });

  it('the HttpListenOptions table has every option of listen over HTTP, principal among them', () => {
    const fields = [
      ...fieldsOf('packages/core/src/server/options.ts', 'HttpListenOptions'),
      ...fieldsOf('packages/core/src/transports/http/node.ts', 'HttpHandlerOptions'),
      ...fieldsOf('packages/core/src/transports/http/endpoint.ts', 'HttpEndpointOptions'),
      ...fieldsOf('packages/core/src/transports/http/security.ts', 'HttpSecurityOptions'),
    ];
    expect(fields).toEqual(expect.arrayContaining(['transport', 'port', 'principal', 'stateless', 'allowedHosts']));
    const documented = tableNames('docs/reference/McpServer.md', '#### HttpListenOptions');
    expect([...new Set(fields)].filter((field) => !documented.includes(field))).toEqual([]);
  });

  it('the StdioListenOptions table has every option of listen over stdio', () => {
    const fields = [...fieldsOf('packages/core/src/server/options.ts', 'StdioListenOptions'), ...fieldsOf('packages/core/src/transports/StdioTransport.ts', 'StdioTransportOptions')];
    expect(fields).toContain('principal');
    const documented = tableNames('docs/reference/McpServer.md', '#### StdioListenOptions');
    expect([...new Set(fields)].filter((field) => !documented.includes(field))).toEqual([]);
  });
});
