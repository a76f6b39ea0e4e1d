import fs from 'node:fs';
import path from 'node:path';

/**
 * The architecture of DESIGN.md and docs/architecture.md, checked on the sources of src/: data
 * flows transport → protocol → era codec → runtime → features, the server sits above them all,
 * nothing imports in a circle, and only the era codecs know the eras and their versions.
 */
const src = path.resolve(__dirname, '..', '..', 'src');

interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

const files = sourceFiles(src);
const relative = (file: string) => path.relative(src, file).split(path.sep).join('/');
const text = new Map(files.map((file) => [relative(file), fs.readFileSync(file, 'utf8')]));

/** The code of a file without its comments (a comment may name anything). */
function code(file: string): string {
  return text.get(file)!.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** The file a relative import names: `x.ts`, or `x/index.ts`. */
function resolveImport(from: string, specifier: string): string {
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  return text.has(`${target}.ts`) ? `${target}.ts` : `${target}/index.ts`;
}

/** Every relative import and re-export of every file, type-only ones marked. */
function fileEdges(): Edge[] {
  const edges: Edge[] = [];
  const statement = /^(?:import|export)\s+(type\s+)?(?:[^;'"]*?from\s+)?'(\.[^']*)'/gms;
  const inline = /import\('(\.[^']*)'\)/g;
  for (const file of text.keys()) {
    const source = code(file);
    for (const match of source.matchAll(statement)) edges.push({ from: file, to: resolveImport(file, match[2]), typeOnly: match[1] !== undefined });
    for (const match of source.matchAll(inline)) edges.push({ from: file, to: resolveImport(file, match[1]), typeOnly: true });
  }
  return edges;
}

/** Groups of two or more files that reach each other through imports (Tarjan's strongly connected components). */
export function circles(edges: readonly Pick<Edge, 'from' | 'to'>[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const group: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        group.push(member);
      } while (member !== node);
      if (group.length > 1 || (next.get(node) ?? []).includes(node)) found.push(group.sort());
    }
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Top folder of a file under src/ (or the file name for files at its top). */
const folderOf = (file: string) => file.split('/')[0].replace(/\.ts$/, '');

/** The names a file imports from other files of src/. */
function importedNames(file: string): string[] {
  const names: string[] = [];
  for (const match of code(file).matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+'\.[^']*'/gms)) {
    names.push(...match[1].split(',').map((name) => name.replace(/^\s*type\s+/, '').split(/\s+as\s+/)[0].trim()).filter(Boolean));
  }
  return names;
}

describe('the architecture of @typemcp/core', () => {
  const edges = fileEdges();
  const folderEdges = edges.map((e) => ({ ...e, from: folderOf(e.from), to: folderOf(e.to) })).filter((e) => e.from !== e.to);
  const imports = (from: string, to: string, valuesOnly = false) => folderEdges.some((e) => e.from === from && e.to === to && (!valuesOnly || !e.typeOnly));

  it('reads the imports (the checks themselves work)', () => {
    expect(imports('server', 'runtime')).toBe(true);
    expect(imports('server', 'transports')).toBe(true);
    expect(imports('features', 'runtime', true)).toBe(true);
    expect(edges.every((e) => text.has(e.to))).toBe(true);
    expect(circles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }, { from: 'c', to: 'a' }, { from: 'c', to: 'd' }])).toEqual([['a', 'b', 'c']]);
    expect(circles([{ from: 'a', to: 'b' }, { from: 'b', to: 'c' }])).toEqual([]);
  });

  it('has no import circle, type-only imports included', () => {
    expect(circles(edges)).toEqual([]);
  });

  it('keeps runtime free of transports and of the server above it, and takes at most types from features', () => {
    expect(folderEdges.filter((e) => e.from === 'runtime' && (e.to === 'transports' || e.to === 'server'))).toEqual([]);
    expect(folderEdges.filter((e) => e.from === 'runtime' && e.to === 'features' && !e.typeOnly)).toEqual([]);
  });

  it('keeps transports, protocol, session and the era codecs below the runtime', () => {
    for (const lower of ['transports', 'protocol', 'session', 'eras']) {
      expect(folderEdges.filter((e) => e.from === lower && ['runtime', 'server', 'features'].includes(e.to))).toEqual([]);
    }
    expect(folderEdges.filter((e) => e.from === 'protocol' && !['errors'].includes(e.to))).toEqual([]);
    expect(folderEdges.filter((e) => e.from === 'session' && !['errors', 'protocol'].includes(e.to))).toEqual([]);
    expect(folderEdges.filter((e) => e.from === 'eras' && ['transports', 'access', 'cluster'].includes(e.to))).toEqual([]);
  });

  it('keeps access rules below the features: types only from the runtime, nothing from transports or the server', () => {
    expect(folderEdges.filter((e) => e.from === 'access' && (['transports', 'server', 'features'].includes(e.to) || (e.to === 'runtime' && !e.typeOnly)))).toEqual([]);
  });

  it('keeps the cluster stores below everything that uses them: they take only types from protocol, session and tasks', () => {
    expect(folderEdges.filter((e) => e.from === 'cluster' && e.to !== 'platform' && (!e.typeOnly || !['protocol', 'session', 'tasks'].includes(e.to)))).toEqual([]);
  });

  it('keeps platform (the Web APIs every runtime has) on the ground floor: it imports nothing of core', () => {
    expect(folderEdges.filter((e) => e.from === 'platform')).toEqual([]);
  });

  it('keeps Node-only modules (listen, stdio, the (req, res) adapter, skill folders, roots on disk) out of the Web entry', () => {
    const reachable = new Set<string>();
    const visit = (file: string) => {
      if (reachable.has(file)) return;
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

  it('keeps decorators thin: no schema work, DI, runtime or I/O behind them, only types from there', () => {
    const heavy = ['runtime', 'features', 'server', 'transports', 'schema', 'validation', 'di', 'access', 'session', 'eras'];
    expect(folderEdges.filter((e) => e.from === 'decorators' && !e.typeOnly && heavy.includes(e.to))).toEqual([]);
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
    // The public entry re-exports the version lists; elicitationSchemaFor(dto, version) is public API that takes a version;
    // typemcp build's collection builds the elicitation schemas of every version a client may ask in.
    const allowed = (file: string, name: string) =>
      file === 'index.ts' || (file === 'features/elicitationSchema.ts' && name === 'revisionOf') || (file === 'build/collect.ts' && ['LATEST_HANDSHAKE_VERSION', 'MODERN_VERSIONS'].includes(name));
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
      .flatMap((file) => code(file).split('\n').map((line, i) => ({ file, line: i + 1, text: line.trim() })))
      .filter(({ text: line }) => eraDecision.test(line));
    expect(offenders).toEqual([]);
  });

  it('reads a request\'s protocolVersion outside the era codecs only to say it or to keep it, never to decide', () => {
    // What may stand around a read: a message (`${…protocolVersion}`), a saved copy
    // (`protocolVersion: x.protocolVersion`), or the getter that passes it on.
    const passedOn = [/\$\{[^}]*\.protocolVersion\}/, /\bprotocolVersion:\s*[\w.]+\.protocolVersion\b/, /^return this\.[\w.]+\.protocolVersion;$/, /^return this\.revision\.version;$/];
    const offenders = [...text.keys()]
      .filter((file) => folderOf(file) !== 'eras')
      .flatMap((file) => code(file).split('\n').map((line, i) => ({ file, line: i + 1, text: line.trim() })))
      .filter(({ text: line }) => /\.protocolVersion\b/.test(line) && !passedOn.some((allowed) => allowed.test(line)));
    expect(offenders).toEqual([]);
  });

  it('compares protocol versions in one place: the revision table of protocol/versions.ts', () => {
    const comparison = /(?:[<>]=?|===?|!==?)\s*'\d{4}-\d{2}-\d{2}'|'\d{4}-\d{2}-\d{2}'\s*(?:[<>]=?|===?|!==?)/;
    const offenders = [...text.keys()]
      .filter((file) => file !== 'protocol/versions.ts')
      .flatMap((file) => code(file).split('\n').map((line, i) => ({ file, line: i + 1, text: line.trim() })))
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

  it('gives plugins seams of equal rank: the plugin host names no plugin and no service', () => {
    const host = code('runtime/plugins.ts');
    expect(host).not.toMatch(/\bauthenticat|\bcluster|@typemcp\//i);
    // A name compared with a literal one (not its type, and not the empty name, which is merely refused).
    expect(host).not.toMatch(/(?<!typeof [\w.]*)\.name\s*[!=]==?\s*(['"`])[^'"`]+\1|(['"`])[^'"`]+\2\s*[!=]==?\s*[\w.]*\.name\b/);
    expect('if (plugin.name === "cluster") return;').toMatch(/(?<!typeof [\w.]*)\.name\s*[!=]==?\s*(['"`])[^'"`]+\1/);
  });
});
