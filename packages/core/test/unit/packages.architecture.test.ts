import fs from 'node:fs';
import path from 'node:path';
import { SUPPORTED_VERSIONS } from '../../src/protocol/versions';
import { circles, code as withoutComments, readSources } from '../../../../test-support/importGraph';
import type { SourceTree } from '../../../../test-support/importGraph';

/**
 * The rules docs/architecture.md gives every package (its section "The other packages"),
 * checked on the sources of packages/<name>/src: how packages import each other (read from
 * the page's table), no import circle, wire constants from core, and the files outside core
 * that decide by era, listed by name.
 */
const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const packagesDir = path.join(repoRoot, 'packages');
const page = fs.readFileSync(path.join(repoRoot, 'docs', 'architecture.md'), 'utf8');

const packageDirs = fs
  .readdirSync(packagesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(packagesDir, entry.name, 'package.json')))
  .map((entry) => entry.name)
  .sort();

interface Manifest {
  name: string;
  exports?: Record<string, unknown>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

const manifests = new Map(packageDirs.map((dir) => [dir, JSON.parse(fs.readFileSync(path.join(packagesDir, dir, 'package.json'), 'utf8')) as Manifest]));
const sources = new Map(packageDirs.filter((dir) => fs.existsSync(path.join(packagesDir, dir, 'src'))).map((dir) => [dir, readSources(path.join(packagesDir, dir, 'src'))]));
const byName = new Map([...manifests].map(([dir, manifest]) => [manifest.name, dir]));

/** The package a specifier names (`@typemcp/core/build` → `@typemcp/core`), when it is one of this repository's. */
function workspacePackage(specifier: string): { name: string; entry: string } | undefined {
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  if (!byName.has(name)) return undefined;
  const rest = specifier.slice(name.length);
  return { name, entry: `.${rest}` };
}

/** The table of "The other packages": for each package folder, the TypeMCP packages its row lets it import. */
export function packageTable(text: string): Map<string, string[]> {
  const section = text.slice(text.indexOf('## The other packages'));
  const rows = section.split('\n').filter((line) => /^\| `packages\/[\w-]+\/` \|/.test(line));
  return new Map(
    rows.map((row) => {
      const cells = row.split('|').map((cell) => cell.trim());
      return [cells[1].replace(/^`packages\/|\/`$/g, ''), [...cells[3].matchAll(/`((?:@typemcp\/)?[\w-]+)`/g)].map((match) => match[1])];
    }),
  );
}

/** Every line of a file's code, with its number. */
function linesOf(tree: SourceTree, file: string): { line: number; text: string }[] {
  return withoutComments(tree.text.get(file)!)
    .split('\n')
    .map((text, i) => ({ line: i + 1, text: text.trim() }));
}

describe('every package', () => {
  it('reads the imports and the page (the checks themselves work)', () => {
    expect(sources.size).toBeGreaterThanOrEqual(9);
    const core = sources.get('core')!;
    expect(core.imports.some((found) => found.from === 'server/McpServer.ts' && found.to === 'server/ServerRuntime.ts')).toBe(true);
    expect(core.imports.some((found) => found.typeOnly) && core.imports.some((found) => !found.typeOnly)).toBe(true);
    expect(sources.get('client')!.imports.some((found) => found.specifier === '@typemcp/core' && found.names.includes('MODERN_VERSIONS'))).toBe(true);
    expect(workspacePackage('@typemcp/core/build')).toEqual({ name: '@typemcp/core', entry: './build' });
    expect(workspacePackage('node:fs')).toBeUndefined();
    expect(packageTable(page).get('cli')).toEqual(['@typemcp/core', '@typemcp/client']);
    expect(circles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }, { from: 'c', to: 'd' }])).toEqual([['a', 'b', 'c']]);
    expect(circles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }])).toEqual([]);
    expect(circles([{ from: 'a', to: 'a' }])).toEqual([['a']]);
  });

  it.each([...sources.keys()])('%s has no import circle, type-only imports included', (dir) => {
    const tree = sources.get(dir)!;
    expect(circles(tree.imports.filter((found) => found.to !== undefined).map((found) => ({ from: found.from, to: found.to! })))).toEqual([]);
  });

  it('keeps each package\'s relative imports inside its own sources', () => {
    const outside = [...sources].flatMap(([dir, tree]) => tree.imports.filter((found) => found.to !== undefined && !tree.text.has(found.to)).map((found) => `${dir}/src/${found.from}: ${found.specifier}`));
    expect(outside).toEqual([]);
  });

  it('lists every package in docs/architecture.md, and each imports of TypeMCP only what its row names, through public entries, as a dependency', () => {
    const table = packageTable(page);
    expect([...table.keys()].sort()).toEqual(packageDirs);
    const problems: string[] = [];
    for (const [dir, tree] of sources) {
      const manifest = manifests.get(dir)!;
      const declared = { ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies };
      for (const found of tree.imports) {
        const target = workspacePackage(found.specifier);
        if (target === undefined) continue;
        const where = `${dir}/src/${found.from}: ${found.specifier}`;
        if (target.name === manifest.name) problems.push(`${where} (the package's own name)`);
        if (!(table.get(dir) ?? []).includes(target.name)) problems.push(`${where} (not in its row of docs/architecture.md)`);
        if (!(target.name in declared)) problems.push(`${where} (not a dependency in its package.json)`);
        const exported = Object.keys(manifests.get(byName.get(target.name)!)!.exports ?? { '.': true }).filter((entry) => entry !== './package.json');
        if (!exported.includes(target.entry)) problems.push(`${where} (not an entry of ${target.name}: ${exported.join(', ')})`);
      }
    }
    expect(problems).toEqual([]);
  });

  describe('outside core, only the client half decides by era', () => {
    /** What a file outside core does that only the era codecs may do in core. */
    type Sign =
      | 'imports versions' // a version list, a newest version or the revision table of @typemcp/core
      | 'names the _meta key' // io.modelcontextprotocol/protocolVersion
      | 'writes a version' // a protocol version as a string literal
      | 'compares with a version' // a protocol version written on one side of a comparison
      | 'reads an era' // `.era`, or a comparison with an era's name
      | 'reads protocolVersion'; // other than to say it (in a message) or keep it (`protocolVersion: x.protocolVersion`)

    /**
     * The files that do some of it, each with why and what: outside @typemcp/client's era
     * codecs only what must know the revisions themselves (the schema oracle, which holds a
     * message to its revision's schema; the options typed with the versions; the CLI's
     * --protocol), and files that only report a request's version. TestClient, the proxy's
     * upstream side and the CLI's commands stand on @typemcp/client. A file not listed here
     * does none of it.
     */
    const known: Record<string, { why: string; does: Sign[] }> = {
      'testing/src/types.ts': { why: 'TestClientOptions.protocolVersion is typed with the versions a client may choose', does: ['imports versions'] },
      'testing/src/schemaCheck.ts': {
        why: 'the oracle holds each message to the official schema of its revision, and an error without an id to the first revision whose schema allows one',
        does: ['imports versions', 'writes a version'],
      },
      'cli/src/run.ts': { why: 'typemcp --protocol accepts the versions core serves', does: ['imports versions'] },
      'guards/src/audit/auditLog.ts': { why: 'puts a request\'s version in its audit entry, and decides nothing by it', does: ['reads protocolVersion'] },
      'opentelemetry/src/requestTelemetry.ts': { why: 'puts a request\'s version on its span and metrics (mcp.protocol.version), and decides nothing by it', does: ['reads protocolVersion'] },
    };

    const versionNames = [
      'HANDSHAKE_VERSIONS',
      'MODERN_VERSIONS',
      'SUPPORTED_VERSIONS',
      'LATEST_HANDSHAKE_VERSION',
      'LATEST_MODERN_VERSION',
      'VERSION_WITHOUT_HEADER',
      'PROTOCOL_VERSION_META',
      'HandshakeVersion',
      'ModernVersion',
      'EraName',
      'Revision',
      'revisionOf',
      'featuresOf',
      'isModernVersion',
      'isServedVersion',
      'negotiateVersion',
    ];
    const version = `(?:${SUPPORTED_VERSIONS.join('|')})`;
    const written = new RegExp(`(['"])${version}\\1`);
    const compared = new RegExp(`(?:[<>]=?|===?|!==?)\\s*(['"])\\d{4}-\\d{2}-\\d{2}\\1|(['"])\\d{4}-\\d{2}-\\d{2}\\2\\s*(?:[<>]=?|===?|!==?)`);
    const eraRead = /\.era\b|\.name\s*[!=]==?\s*'(?:handshake|modern)'|'(?:handshake|modern)'\s*[!=]==?/;
    // As in core: a message (`${…protocolVersion}`), a saved copy (`protocolVersion: x.protocolVersion`), the getter that passes it on.
    const passedOn = [/\$\{[^}]*\.protocolVersion\}/, /\bprotocolVersion:\s*[\w.]+\.protocolVersion\b/, /^return this\.[\w.]+\.protocolVersion;$/];

    function signsOf(tree: SourceTree, file: string): Sign[] {
      const signs = new Set<Sign>();
      if (tree.imports.some((found) => found.from === file && workspacePackage(found.specifier)?.name === '@typemcp/core' && found.names.some((name) => versionNames.includes(name)))) {
        signs.add('imports versions');
      }
      for (const { text } of linesOf(tree, file)) {
        if (/io\.modelcontextprotocol\/protocolVersion/.test(text)) signs.add('names the _meta key');
        if (written.test(text)) signs.add('writes a version');
        if (compared.test(text)) signs.add('compares with a version');
        if (eraRead.test(text)) signs.add('reads an era');
        if (/\.protocolVersion\b/.test(text) && !passedOn.some((allowed) => allowed.test(text))) signs.add('reads protocolVersion');
      }
      return [...signs].sort();
    }

    /** Folders that, like core's `eras/`, hold a package's era codecs: their files may do all of it. */
    const codecs = ['client/src/eras/'];
    const everyFile = [...sources]
      .filter(([dir]) => dir !== 'core')
      .flatMap(([dir, tree]) => [...tree.text.keys()].map((file) => [`${dir}/src/${file}`, signsOf(tree, file)] as const))
      .filter(([, signs]) => signs.length > 0);
    const found = Object.fromEntries(everyFile.filter(([file]) => !codecs.some((folder) => file.startsWith(folder))));

    it('leaves the era decisions of @typemcp/client to its era codecs (src/eras/), where they are', () => {
      const inCodecs = everyFile.filter(([file]) => codecs.some((folder) => file.startsWith(folder))).map(([file]) => file);
      expect(inCodecs).toEqual(expect.arrayContaining(['client/src/eras/index.ts', 'client/src/eras/handshake/codec.ts', 'client/src/eras/modern/codec.ts']));
      expect(Object.keys(found).filter((file) => file.startsWith('client/'))).toEqual([]);
    });

    it('tells what a file does (the checks themselves work)', () => {
      const tree: SourceTree = {
        root: '',
        text: new Map([['x.ts', "// '2025-11-25' in a comment\nif (revision.era === 'modern' || v >= '2025-06-18') send({ protocolVersion: '2026-07-28' });\nconst v = this.protocolVersion;\nthrow new Error(`speaks ${this.protocolVersion}`);\n"]]),
        imports: [{ from: 'x.ts', specifier: '@typemcp/core', typeOnly: false, names: ['LATEST_MODERN_VERSION'] }],
      };
      expect(signsOf(tree, 'x.ts')).toEqual(['compares with a version', 'imports versions', 'reads an era', 'reads protocolVersion', 'writes a version']);
    });

    it('finds it only in the files listed, each doing what its entry says', () => {
      expect(found).toEqual(Object.fromEntries(Object.entries(known).map(([file, { does }]) => [file, [...does].sort()])));
    });

    it('takes the wire constants from @typemcp/core: no package writes a list of versions', () => {
      const list = new RegExp(`(['"])${version}\\1\\s*,\\s*(['"])${version}\\2`);
      const lists = [...sources]
        .filter(([dir]) => dir !== 'core')
        .flatMap(([dir, tree]) => [...tree.text.keys()].flatMap((file) => linesOf(tree, file).filter(({ text }) => list.test(text)).map(({ line, text }) => `${dir}/src/${file}:${line}: ${text}`)));
      expect(lists).toEqual([]);
    });
  });

  it('cites no design file outside the repository: none of the sources, tests, docs, examples or templates names one', () => {
    const design = ['DESIGN', 'md'].join('.');
    const roots = [...packageDirs.flatMap((dir) => ['src', 'test'].map((sub) => path.join(packagesDir, dir, sub))), ...['docs', 'examples', 'templates', 'test-support'].map((dir) => path.join(repoRoot, dir))];
    const textFile = /\.(?:ts|tsx|js|mjs|cjs|json|md|html|css|ya?ml|sh|txt)$/;
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return ['node_modules', 'dist', '.git'].includes(entry.name) ? [] : walk(full);
        return textFile.test(entry.name) ? [full] : [];
      });
    const files = roots.filter((root) => fs.existsSync(root)).flatMap(walk);
    expect(files.length).toBeGreaterThan(500);
    const citing = files.filter((file) => fs.readFileSync(file, 'utf8').includes(design)).map((file) => path.relative(repoRoot, file));
    expect(citing).toEqual([]);
  });
});
