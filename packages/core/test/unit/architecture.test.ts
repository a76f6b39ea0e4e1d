import fs from 'node:fs';
import path from 'node:path';

/**
 * The layering of DESIGN.md: data flows transport → protocol → runtime → features, and the
 * server sits above them all. Checked on the import statements of src/.
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

/** Top folder of a file under src/ (or the file name for files at its top). */
const folderOf = (file: string) => path.relative(src, file).split(path.sep)[0].replace(/\.ts$/, '');

function importEdges(): Edge[] {
  const edges: Edge[] = [];
  const statement = /^(import|export)\s+(type\s+)?[^;]*?from\s+'(\.[^']*)'/gms;
  for (const file of sourceFiles(src)) {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(statement)) {
      const target = path.resolve(path.dirname(file), match[3]);
      edges.push({ from: folderOf(file), to: folderOf(target), typeOnly: match[2] !== undefined });
    }
  }
  return edges.filter((e) => e.from !== e.to);
}

describe('the layering of @typemcp/core', () => {
  const edges = importEdges();
  const imports = (from: string, to: string, valuesOnly = false) => edges.some((e) => e.from === from && e.to === to && (!valuesOnly || !e.typeOnly));

  it('reads the imports (the check itself works)', () => {
    expect(imports('server', 'runtime')).toBe(true);
    expect(imports('server', 'transports')).toBe(true);
    expect(imports('features', 'runtime', true)).toBe(true);
  });

  it('keeps runtime free of transports and of the server above it', () => {
    expect(edges.filter((e) => e.from === 'runtime' && (e.to === 'transports' || e.to === 'server'))).toEqual([]);
  });

  it('has no runtime ⇄ features cycle: runtime takes at most types from features', () => {
    expect(edges.filter((e) => e.from === 'runtime' && e.to === 'features' && !e.typeOnly)).toEqual([]);
  });

  it('keeps transports and protocol below the runtime', () => {
    for (const lower of ['transports', 'protocol']) {
      expect(edges.filter((e) => e.from === lower && ['runtime', 'server', 'features'].includes(e.to))).toEqual([]);
    }
  });

  it('keeps session below the runtime: eras produce scopes and channels without knowing who uses them', () => {
    expect(edges.filter((e) => e.from === 'session' && ['runtime', 'features', 'server', 'transports'].includes(e.to))).toEqual([]);
  });

  it('keeps access rules below the runtime: they take only types from it, and nothing from transports or the server', () => {
    expect(edges.filter((e) => e.from === 'access' && (['transports', 'server', 'features'].includes(e.to) || (e.to === 'runtime' && !e.typeOnly)))).toEqual([]);
  });

  it('keeps the cluster stores below everything that uses them: they take only types from protocol, session and tasks', () => {
    expect(edges.filter((e) => e.from === 'cluster' && (!e.typeOnly || !['protocol', 'session', 'tasks'].includes(e.to)))).toEqual([]);
  });

  it('keeps decorators thin: no schema work, DI, runtime or I/O behind them, only types from there', () => {
    const heavy = ['runtime', 'features', 'server', 'transports', 'schema', 'validation', 'di', 'access', 'session'];
    expect(edges.filter((e) => e.from === 'decorators' && !e.typeOnly && heavy.includes(e.to))).toEqual([]);
  });

  it('picks the era of a request in one place: eraOf in session/Era.ts', () => {
    const callers = sourceFiles(src)
      .filter((file) => /\brequestedEra\(|io\.modelcontextprotocol\/protocolVersion/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(src, file).split(path.sep).join('/'));
    expect(callers.sort()).toEqual(['protocol/versions.ts', 'session/Era.ts']);
  });

  it('compares protocol versions in one place: the feature table of protocol/versions.ts', () => {
    const comparison = /(?:[<>]=?|===?|!==?)\s*'\d{4}-\d{2}-\d{2}'|'\d{4}-\d{2}-\d{2}'\s*(?:[<>]=?|===?|!==?)/;
    const offenders = sourceFiles(src)
      .filter((file) => path.relative(src, file) !== path.join('protocol', 'versions.ts'))
      .flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').map((line, i) => ({ file: path.relative(src, file), line: i + 1, text: line.trim() })))
      .filter(({ text }) => comparison.test(text));
    expect(offenders).toEqual([]);
  });
});
