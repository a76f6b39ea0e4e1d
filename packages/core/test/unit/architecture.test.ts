import fs from 'node:fs';
import path from 'node:path';
import { code as withoutComments, readSources } from '../../../../test-support/importGraph';

/**
 * The rules docs/architecture.md gives @typemcp/core, checked on the sources of src/: the
 * layers in the order of the page's own table (read here, so that the page and the test
 * cannot drift), the seams between them, and only the era codecs knowing the eras. What
 * every package keeps to (no import circle, imports between packages, the client half of the
 * protocol) is packages.architecture.test.ts's.
 */
const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const src = path.join(repoRoot, 'packages', 'core', 'src');
const page = fs.readFileSync(path.join(repoRoot, 'docs', 'architecture.md'), 'utf8');
const tree = readSources(src);
const text = tree.text;

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** Every import and re-export of one file of src/ by another, type-only ones marked. */
const edges: Edge[] = tree.imports.filter((found) => found.to !== undefined).map((found) => ({ from: found.from, to: found.to!, typeOnly: found.typeOnly }));

const codeOf = new Map<string, string>();
/** The code of a file without its comments (a comment may name anything). */
function code(file: string): string {
  if (!codeOf.has(file)) codeOf.set(file, withoutComments(text.get(file)!));
  return codeOf.get(file)!;
}

/** Every line of a file's code, with its number. */
const linesOf = (file: string) => code(file).split('\n').map((line, i) => ({ file, line: i + 1, text: line.trim() }));

/** Top folder of a file under src/ (or the file's name without `.ts` for a file at its top). */
const folderOf = (file: string) => file.split('/')[0].replace(/\.ts$/, '');

/** The names a file takes from other files of src/ (imports and re-exports). */
const importedNames = (file: string) => tree.imports.filter((found) => found.from === file && found.to !== undefined).flatMap((found) => found.names);

/**
 * The rows of the table under "The layers", from the ground up: the folders and top-level
 * files of src/ that each row's first column names (`errors/` → errors, `index.web.ts` → index.web).
 */
export function layersOf(markdown: string): string[][] {
  const section = markdown.slice(markdown.indexOf('\n## The layers'));
  const lines = section.slice(section.indexOf('\n|') + 1).split('\n');
  const table = lines.slice(0, lines.findIndex((line) => !line.startsWith('|')));
  return table.slice(2).map((row) => [...row.split('|')[1].matchAll(/`([^`]+)`/g)].map((match) => match[1].replace(/\/$/, '').replace(/\.ts$/, '')));
}

/** The type-only imports the page lets run up the table: the pairs (`from/` → `to/`) of the rule that says so. */
export function typesUpOf(markdown: string): string[] {
  const rule = markdown.slice(markdown.indexOf('- **The table is the order of the imports'));
  return [...rule.slice(0, rule.indexOf('\n- ', 1)).matchAll(/`([\w.]+?)\/?`\s*→\s*`([\w.]+?)\/?`/g)].map((match) => `${match[1]} → ${match[2]}`);
}

describe('the architecture of @typemcp/core', () => {
  const folderEdges = edges.map((e) => ({ ...e, via: `${e.from} → ${e.to}`, from: folderOf(e.from), to: folderOf(e.to) })).filter((e) => e.from !== e.to);
  const imports = (from: string, to: string, valuesOnly = false) => folderEdges.some((e) => e.from === from && e.to === to && (!valuesOnly || !e.typeOnly));
  const layers = layersOf(page);
  const rowOf = new Map(layers.flatMap((row, i) => row.map((name) => [name, i] as const)));

  it('reads the imports and the page (the checks themselves work)', () => {
    expect(imports('server', 'runtime')).toBe(true);
    expect(imports('server', 'transports')).toBe(true);
    expect(imports('features', 'runtime', true)).toBe(true);
    expect(edges.every((e) => text.has(e.to))).toBe(true);
    expect(layers[0]).toEqual(['platform']);
    expect(layers[1]).toEqual(['constants', 'errors', 'metadata']);
    expect(layers.at(-1)).toEqual(['index.web', 'index']);
    const rule = '- **The table is the order of the imports, types included.** … allowed (each as two folders with an arrow), and nowhere else: `runtime/` → `features/`, `tasks/` → `eras/`.\n- **Next.** `a/` → `b/`';
    expect(typesUpOf(rule)).toEqual(['runtime → features', 'tasks → eras']);
    expect(typesUpOf(page)).toEqual([]);
  });

  it('names every folder and top-level file of src/ in one row of the table of layers', () => {
    const entries = fs.readdirSync(src, { withFileTypes: true }).map((entry) => entry.name.replace(/\.ts$/, '')).sort();
    const named = layers.flat();
    expect(named.filter((name, i) => named.indexOf(name) !== i)).toEqual([]);
    expect([...named].sort()).toEqual(entries);
  });

  it('imports, values and types alike, only from the rows of the table above or from the same row (type-only imports up only where the page names them)', () => {
    const typesUp = typesUpOf(page);
    const offenders = folderEdges
      .filter((e) => rowOf.has(e.from) && rowOf.has(e.to) && rowOf.get(e.to)! > rowOf.get(e.from)!)
      .filter((e) => !(e.typeOnly && typesUp.includes(`${e.from} → ${e.to}`)))
      .map((e) => `${e.via}${e.typeOnly ? ' (types)' : ''}`);
    expect(offenders).toEqual([]);
    // An exception the page names that no import uses any more goes from the page.
    expect(typesUp.filter((pair) => !folderEdges.some((e) => e.typeOnly && `${e.from} → ${e.to}` === pair))).toEqual([]);
  });

  it('keeps transports, protocol, session and the era codecs below the runtime', () => {
    for (const lower of ['transports', 'protocol', 'session', 'eras']) {
      expect(folderEdges.filter((e) => e.from === lower && ['runtime', 'features', 'composition', 'server'].includes(e.to)).map((e) => e.via)).toEqual([]);
    }
    expect(folderEdges.filter((e) => e.from === 'protocol' && !['errors'].includes(e.to)).map((e) => e.via)).toEqual([]);
    expect(folderEdges.filter((e) => e.from === 'session' && !['errors', 'protocol'].includes(e.to)).map((e) => e.via)).toEqual([]);
    expect(folderEdges.filter((e) => e.from === 'eras' && ['transports', 'access', 'cluster'].includes(e.to)).map((e) => e.via)).toEqual([]);
  });

  it('keeps access rules below the features: types only from the runtime', () => {
    expect(folderEdges.filter((e) => e.from === 'access' && e.to === 'runtime' && !e.typeOnly).map((e) => e.via)).toEqual([]);
  });

  it('keeps the cluster stores below everything that uses them, the task runtime included: values only from platform, types only from protocol and session', () => {
    expect(folderEdges.filter((e) => e.from === 'cluster' && e.to !== 'platform' && (!e.typeOnly || !['protocol', 'session'].includes(e.to))).map((e) => e.via)).toEqual([]);
  });

  it('keeps platform (the Web APIs every runtime has) on the ground floor: it imports nothing of core', () => {
    expect(folderEdges.filter((e) => e.from === 'platform').map((e) => e.via)).toEqual([]);
  });

  it('never lets a feature import composition, not even a type', () => {
    expect(folderEdges.filter((e) => e.from === 'features' && e.to === 'composition').map((e) => e.via)).toEqual([]);
  });

  it('puts no variant flags on items: no file of features/ reads .mounted, .transformed or .transformedFrom', () => {
    const flags = '(?:mounted|transformed|transformedFrom)';
    const read = new RegExp(`\\.${flags}\\b|\\[\\s*['"]${flags}['"]\\s*\\]|\\{[^{}]*\\b${flags}\\b[^{}]*\\}\\s*=(?!=)`, 'g');
    expect('if (tool.mounted) x; const { transformed } = tool; y = item?.transformedFrom; z = item["mounted"];'.match(read)).toHaveLength(4);
    const offenders = [...text.keys()]
      .filter((file) => folderOf(file) === 'features')
      .flatMap((file) => [...code(file).matchAll(read)].map((match) => `${file}:${code(file).slice(0, match.index).split('\n').length}: ${match[0].replace(/\s+/g, ' ')}`));
    expect([...new Set(offenders)]).toEqual([]);
  });

  it('keeps Node-only modules (listen, stdio, the (req, res) adapter, skill folders, roots on disk) out of the Web entry', () => {
    const reachable = new Set<string>();
    const visit = (file: string) => {
      if (reachable.has(file) || !text.has(file)) return;
      reachable.add(file);
      for (const e of edges) if (e.from === file && !e.typeOnly) visit(e.to);
    };
    visit('index.web.ts');
    const nodeOnly = ['server/listen.ts', 'server/node.ts', 'transports/StdioTransport.ts', 'transports/http/node.ts', 'skills/folder.ts', 'features/rootsContain.ts'];
    expect(nodeOnly.filter((file) => reachable.has(file))).toEqual([]);
    expect([...reachable].filter((file) => /\bfrom 'node:|require\('node:/.test(code(file)))).toEqual([]);
    visit('index.ts');
    expect(nodeOnly.filter((file) => !reachable.has(file))).toEqual([]);
  });

  it('keeps decorators thin: values only from constants, errors, metadata and protocol; nothing runs behind them', () => {
    expect(folderEdges.filter((e) => e.from === 'decorators' && !e.typeOnly && !['constants', 'errors', 'metadata', 'protocol'].includes(e.to)).map((e) => e.via)).toEqual([]);
  });

  it('leaves the versions of each era to the era codecs: no other file imports the version lists or the version table', () => {
    const versionNames = [
      'featuresOf',
      'revisionOf',
      'HANDSHAKE_VERSIONS',
      'MODERN_VERSIONS',
      'SUPPORTED_VERSIONS',
      'LATEST_HANDSHAKE_VERSION',
      'LATEST_MODERN_VERSION',
      'VERSION_WITHOUT_HEADER',
      'PROTOCOL_VERSION_META',
      'isModernVersion',
      'isServedVersion',
      'negotiateVersion',
    ];
    // The public entries re-export the version lists; elicitationSchemaFor(dto, version) is public API that takes a version;
    // typemcp build's collection builds the elicitation schemas of every version a client may ask in.
    const allowed = (file: string, name: string) =>
      file === 'index.ts' || file === 'index.web.ts' || (file === 'features/elicitationSchema.ts' && name === 'revisionOf') || (file === 'build/collect.ts' && ['LATEST_HANDSHAKE_VERSION', 'MODERN_VERSIONS'].includes(name));
    const offenders = [...text.keys()]
      .filter((file) => folderOf(file) !== 'eras' && folderOf(file) !== 'protocol')
      .flatMap((file) => importedNames(file).filter((name) => versionNames.includes(name) && !allowed(file, name)).map((name) => `${file}: ${name}`));
    expect(offenders).toEqual([]);
  });

  it('picks the codec of a request where it enters the runtime: a connection, or a request served alone', () => {
    const pickers = ['codecOf', 'eraOf', 'handshakeCodec', 'modernCodec', 'sessionLifecycle', 'requestedEra'];
    const entries: Record<string, string[]> = { 'runtime/Connection.ts': ['codecOf', 'sessionLifecycle'], 'runtime/serveAlone.ts': ['codecOf'] };
    const offenders = [...text.keys()]
      .filter((file) => folderOf(file) !== 'eras')
      .flatMap((file) => importedNames(file).filter((name) => pickers.includes(name) && !entries[file]?.includes(name)).map((name) => `${file}: ${name}`));
    expect(offenders).toEqual([]);
    const naming = [...text.keys()].filter((file) => folderOf(file) !== 'eras' && file !== 'protocol/versions.ts' && /io\.modelcontextprotocol\/protocolVersion/.test(code(file)));
    expect(naming).toEqual([]);
  });

  it('decides nothing by era outside the era codecs: no reads of an era, no comparisons with an era\'s name', () => {
    const eraDecision = /\.era\b|\.name\s*[!=]==?\s*'(?:handshake|modern)'|'(?:handshake|modern)'\s*[!=]==?/;
    const offenders = [...text.keys()]
      .filter((file) => folderOf(file) !== 'eras' && file !== 'protocol/versions.ts')
      .flatMap(linesOf)
      .filter(({ text: line }) => eraDecision.test(line));
    expect(offenders).toEqual([]);
  });

  it('reads a request\'s protocolVersion outside the era codecs only to say it or to keep it, never to decide', () => {
    // What may stand around a read: a message (`${…protocolVersion}`), a saved copy
    // (`protocolVersion: x.protocolVersion`), or the getter that passes it on.
    const passedOn = [/\$\{[^}]*\.protocolVersion\}/, /\bprotocolVersion:\s*[\w.]+\.protocolVersion\b/, /^return this\.[\w.]+\.protocolVersion;$/, /^return this\.revision\.version;$/];
    const offenders = [...text.keys()]
      .filter((file) => folderOf(file) !== 'eras')
      .flatMap(linesOf)
      .filter(({ text: line }) => /\.protocolVersion\b/.test(line) && !passedOn.some((allowed) => allowed.test(line)));
    expect(offenders).toEqual([]);
  });

  it('compares protocol versions in one place: the revision table of protocol/versions.ts', () => {
    const comparison = /(?:[<>]=?|===?|!==?)\s*'\d{4}-\d{2}-\d{2}'|'\d{4}-\d{2}-\d{2}'\s*(?:[<>]=?|===?|!==?)/;
    const offenders = [...text.keys()]
      .filter((file) => file !== 'protocol/versions.ts')
      .flatMap(linesOf)
      .filter(({ text: line }) => comparison.test(line));
    expect(offenders).toEqual([]);
  });

  it('leaves Node\'s HTTP to the Node adapter and to listen: the HTTP core and the fetch path stand on Web APIs', () => {
    const nodeHosts = ['transports/http/node.ts', 'server/listen.ts'];
    const nodeHttp = [...text.keys()].filter((file) => !nodeHosts.includes(file) && /['"]node:http['"]|\bIncomingMessage\b|\bServerResponse\b/.test(code(file)));
    expect(nodeHttp).toEqual([]);
    const nodeModules = [...text.keys()].filter((file) => file.startsWith('transports/http/') && file !== 'transports/http/node.ts' && /from ['"]node:|require\(['"]node:/.test(code(file)));
    expect(nodeModules).toEqual([]);
    expect(code('transports/http/node.ts')).toMatch(/IncomingMessage/);
  });

  it('keeps McpServer a thin facade: 250 lines at most', () => {
    expect(text.get('server/McpServer.ts')!.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('keeps ServerRuntime the wiring of its rooms (the catalog, the sessions): 250 lines at most', () => {
    expect(text.get('server/ServerRuntime.ts')!.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('gives plugins seams of equal rank: the plugin host names no plugin and no service', () => {
    const host = code('runtime/plugins.ts');
    expect(host).not.toMatch(/\bauthenticat|\bcluster|@typemcp\//i);
    // A name compared with a literal one (not its type, and not the empty name, which is merely refused).
    expect(host).not.toMatch(/(?<!typeof [\w.]*)\.name\s*[!=]==?\s*(['"`])[^'"`]+\1|(['"`])[^'"`]+\2\s*[!=]==?\s*[\w.]*\.name\b/);
    expect('if (plugin.name === "cluster") return;').toMatch(/(?<!typeof [\w.]*)\.name\s*[!=]==?\s*(['"`])[^'"`]+\1/);
  });
});
