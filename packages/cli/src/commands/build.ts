import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Output } from '../output';
import { UsageError } from '../UsageError';
import { snapshotPreloads, snapshotBlobPath, snapshotEntrySource, writeSnapshot } from './snapshot';

export interface BuildOptions {
  entry: string;
  /** Default: dist/bundle/server.js, or server.mjs for an ES module entry. */
  outfile?: string;
  minify: boolean;
  sourcemap: boolean;
  tsc: boolean;
  snapshot: boolean;
}

/**
 * A production bundle: the project's own tsc first (its output keeps the decorator metadata
 * TypeMCP reads), then esbuild bundles that output and its dependencies into one file, in the
 * entry's module format (CommonJS, or an ES module for an ES module entry).
 */
export async function build(options: BuildOptions, out: Output): Promise<number> {
  const cwd = process.cwd();
  const started = Date.now();
  if (options.tsc) {
    if (!fs.existsSync(path.join(cwd, 'tsconfig.json'))) throw new UsageError(`there is no tsconfig.json in ${cwd}: run typemcp build in the project's folder, or pass --no-tsc`);
    const tsc = findTsc(cwd);
    out.progress('compiling: tsc -p tsconfig.json');
    // tsc reports on stdout; collected so that it follows the status lines on stderr.
    const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    const report = `${compiled.stdout ?? ''}${compiled.stderr ?? ''}`.trimEnd();
    if (compiled.status !== 0) {
      if (report) out.info(report);
      out.error(compiled.error ? `tsc could not run: ${compiled.error.message}` : 'tsc reported errors; no bundle was made');
      return 1;
    }
    if (report) out.info(report);
  }
  const entry = path.resolve(options.entry);
  if (!fs.existsSync(entry)) throw new UsageError(`${options.entry} does not exist${options.tsc ? ' after tsc' : ''}; pass the compiled entry (default dist/main.js)`);
  out.progress(`bundling ${path.relative(cwd, entry)}`);
  const esbuild = await import('esbuild');
  const format = moduleFormatOf(entry);
  const outfile = path.resolve(options.outfile ?? path.join('dist', 'bundle', format === 'esm' ? 'server.mjs' : 'server.js'));
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      // CommonJS packages inside an ES module bundle still call require (for Node's modules).
      banner: format === 'esm' ? { js: ESM_REQUIRE } : undefined,
      keepNames: true,
      minify: options.minify,
      sourcemap: options.sourcemap,
      legalComments: 'none',
      logLevel: 'silent',
      metafile: options.snapshot,
    });
  } catch (error) {
    reportEsbuildErrors(error, out);
    out.error('esbuild could not bundle the entry; no bundle was made');
    return 1;
  }
  for (const warning of result.warnings) out.info(out.dim(`warning: ${warning.text}`));
  const size = fs.statSync(outfile).size;
  const shown = path.relative(cwd, outfile);
  out.info(`${out.green('built')} ${shown.startsWith('..') ? outfile : shown} ${formatSize(size)} in ${Date.now() - started} ms`);
  if (!options.snapshot) return 0;
  return await buildSnapshot(esbuild, entry, outfile, result.metafile!, started, out);
}

/**
 * A V8 startup snapshot beside the bundle: the framework's packages evaluated at build time,
 * so a process started from the blob skips loading them. Always minified: the snapshot holds
 * the source text, and a smaller heap deserializes faster.
 */
async function buildSnapshot(
  esbuild: typeof import('esbuild'),
  entry: string,
  outfile: string,
  metafile: import('esbuild').Metafile,
  started: number,
  out: Output,
): Promise<number> {
  const cwd = process.cwd();
  const blob = snapshotBlobPath(outfile);
  const snapshotBundle = `${outfile}.snapshot-entry.js`;
  // A blob of an earlier build must not outlive a failed one beside the new bundle.
  fs.rmSync(blob, { force: true });
  out.progress('building the startup snapshot');
  try {
    let bundled;
    try {
      bundled = await esbuild.build({
        stdin: {
          contents: snapshotEntrySource(entry, snapshotPreloads(entry, metafile, cwd), path.basename(outfile)),
          resolveDir: path.dirname(entry),
          sourcefile: 'snapshot-entry.js',
          loader: 'js',
        },
        outfile: snapshotBundle,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'cjs',
        keepNames: true,
        minify: true,
        legalComments: 'none',
        logLevel: 'silent',
      });
    } catch (error) {
      reportEsbuildErrors(error, out);
      out.error('esbuild could not bundle the snapshot entry; the bundle itself is built');
      return 1;
    }
    if (bundled.warnings.some((warning) => warning.text.includes('import.meta'))) {
      out.error('the entry uses import.meta, which a startup snapshot (one CommonJS script) cannot give it; the bundle itself is built');
      return 1;
    }
    const written = writeSnapshot(snapshotBundle, blob);
    if (!written.ok) {
      if (written.report) out.info(written.report);
      out.error('node could not build a startup snapshot of this bundle; the bundle itself is built');
      return 1;
    }
  } finally {
    fs.rmSync(snapshotBundle, { force: true });
  }
  const shown = path.relative(cwd, blob);
  const where = shown.startsWith('..') ? blob : shown;
  out.info(`${out.green('built')} ${where} ${formatSize(fs.statSync(blob).size)} in ${Date.now() - started} ms`);
  out.info(out.dim(`run it with this Node.js (${process.version}): node --snapshot-blob ${where} -- [arguments]`));
  return 0;
}

const ESM_REQUIRE = "import { createRequire as __typemcpCreateRequire } from 'node:module'; const require = __typemcpCreateRequire(import.meta.url);";

/** How Node loads the entry: by its extension, or for .js by the nearest package.json's "type". */
export function moduleFormatOf(entry: string): 'esm' | 'cjs' {
  if (entry.endsWith('.mjs')) return 'esm';
  if (entry.endsWith('.cjs')) return 'cjs';
  for (let dir = path.dirname(entry); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      try {
        return (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { type?: unknown }).type === 'module' ? 'esm' : 'cjs';
      } catch {
        return 'cjs';
      }
    }
    if (path.dirname(dir) === dir) return 'cjs';
  }
}

/** Prints esbuild's errors with their places; rethrows what is not an esbuild failure. */
function reportEsbuildErrors(error: unknown, out: Output): void {
  const errors = (error as { errors?: Array<{ text: string; location?: { file: string; line: number } | null }> }).errors ?? [];
  if (errors.length === 0) throw error;
  for (const e of errors) out.error(`${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`);
}

function formatSize(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(0)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function findTsc(cwd: string): string {
  try {
    return require.resolve('typescript/bin/tsc', { paths: [cwd] });
  } catch {
    throw new UsageError('typescript is not installed in this project (npm install --save-dev typescript), or pass --no-tsc');
  }
}
