import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** What collecting the validators of an application gave. */
export type CollectResult =
  | { ok: true; file: string; count: number; skipped: Array<{ what: string; reason: string }>; exportNames: string[] }
  | { ok: false; report: string };

/**
 * The precompiled validators of an application, written to `file`: a Node process loads the
 * compiled entry with the @typemcp/core it resolves (its servers do not listen meanwhile, an
 * exit it asks for is ignored, and TYPEMCP_COLLECTING_VALIDATORS=1 lets its own code tell),
 * hears every schema they will compile, and writes ajv's standalone code for them. Also gives
 * the names the entry exports (a Worker's other exports, such as Durable Object classes), and
 * writes the icon files its servers read (`icons: [{ file }]`) as data URIs beside them.
 */
export function collectValidators(entry: string, format: 'esm' | 'cjs', file: string): CollectResult {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const script = [
    'const exit = process.exit.bind(process);',
    'const exits = [];',
    'process.exit = (code) => { exits.push(code); };',
    'let exported = {};',
    'const { createRequire } = require("node:module");',
    `const entry = ${JSON.stringify(entry)};`,
    'const fromEntry = createRequire(entry);',
    'const { collectSchemas, generateValidatorsModule, generateIconsModule } = fromEntry("@typemcp/core/build");',
    `const load = async () => { exported = await ${format === 'esm' ? `import(${JSON.stringify(pathToFileURL(entry).href)})` : 'require(entry)'}; };`,
    'collectSchemas(load).then(({ schemas, skipped, icons }) => {',
    // The icon files the servers read go into the same module: installed before the application runs.
    `  require("node:fs").writeFileSync(${JSON.stringify(file)}, generateValidatorsModule(schemas) + (generateIconsModule ? generateIconsModule(icons ?? {}) : ""));`,
    '  for (const code of exits) skipped.push({ what: "the entry", reason: `it called process.exit(${code ?? ""}) while loading; ignored` });',
    '  const exportNames = Object.keys(exported ?? {}).filter((name) => name !== "default" && name !== "__esModule");',
    '  process.stdout.write(JSON.stringify({ count: schemas.length, skipped, exportNames }));',
    '  exit(0);',
    '}, (error) => {',
    '  process.stderr.write((error && error.stack) || String(error));',
    '  exit(1);',
    '});',
  ].join('\n');
  const env: NodeJS.ProcessEnv = { ...process.env, TYPEMCP_COLLECTING_VALIDATORS: '1' };
  delete env.NODE_OPTIONS;
  // From the build's folder, as the application runs: its relative paths mean the same.
  const ran = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env, timeout: 120_000 });
  if (ran.status !== 0) return { ok: false, report: `${ran.error?.message ?? ''}${ran.stderr ?? ''}`.trim() };
  try {
    const { count, skipped, exportNames } = JSON.parse(ran.stdout.slice(ran.stdout.lastIndexOf('{"count"'))) as {
      count: number;
      skipped: Array<{ what: string; reason: string }>;
      exportNames: string[];
    };
    return { ok: true, file, count, skipped, exportNames };
  } catch {
    return { ok: false, report: `the collection printed no summary: ${ran.stdout.slice(-500)}` };
  }
}
