import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** What collecting the validators of an application gave. */
export type CollectResult = { ok: true; file: string; count: number; skipped: Array<{ what: string; reason: string }> } | { ok: false; report: string };

/**
 * The precompiled validators of an application, written to `file`: a Node process loads the
 * compiled entry with the @typemcp/core it resolves (its servers do not listen meanwhile),
 * hears every schema they will compile, and writes ajv's standalone code for them.
 */
export function collectValidators(entry: string, format: 'esm' | 'cjs', file: string): CollectResult {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const script = [
    'const { createRequire } = require("node:module");',
    `const entry = ${JSON.stringify(entry)};`,
    'const fromEntry = createRequire(entry);',
    'const { collectSchemas, generateValidatorsModule } = fromEntry("@typemcp/core/build");',
    `const load = ${format === 'esm' ? `() => import(${JSON.stringify(pathToFileURL(entry).href)})` : '() => require(entry)'};`,
    'collectSchemas(load).then(({ schemas, skipped }) => {',
    `  require("node:fs").writeFileSync(${JSON.stringify(file)}, generateValidatorsModule(schemas));`,
    '  process.stdout.write(JSON.stringify({ count: schemas.length, skipped }));',
    '  process.exit(0);',
    '}, (error) => {',
    '  process.stderr.write((error && error.stack) || String(error));',
    '  process.exit(1);',
    '});',
  ].join('\n');
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  const ran = spawnSync(process.execPath, ['-e', script], { cwd: path.dirname(entry), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env, timeout: 120_000 });
  if (ran.status !== 0) return { ok: false, report: `${ran.error?.message ?? ''}${ran.stderr ?? ''}`.trim() };
  try {
    const { count, skipped } = JSON.parse(ran.stdout.slice(ran.stdout.lastIndexOf('{"count"'))) as { count: number; skipped: Array<{ what: string; reason: string }> };
    return { ok: true, file, count, skipped };
  } catch {
    return { ok: false, report: `the collection printed no summary: ${ran.stdout.slice(-500)}` };
  }
}
