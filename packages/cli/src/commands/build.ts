import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Output } from '../output';
import { UsageError } from '../UsageError';

export interface BuildOptions {
  entry: string;
  outfile: string;
  minify: boolean;
  sourcemap: boolean;
  tsc: boolean;
}

/**
 * A production bundle: the project's own tsc first (its output keeps the decorator metadata
 * TypeMCP reads), then esbuild bundles that output and its dependencies into one CommonJS file.
 */
export async function build(options: BuildOptions, out: Output): Promise<number> {
  const cwd = process.cwd();
  const started = Date.now();
  if (options.tsc) {
    const tsc = findTsc(cwd);
    out.info(out.dim(`[typemcp build] tsc -p tsconfig.json`));
    const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd, stdio: 'inherit' });
    if (compiled.status !== 0) {
      out.error('tsc reported errors; no bundle was made');
      return 1;
    }
  }
  const entry = path.resolve(options.entry);
  if (!fs.existsSync(entry)) throw new UsageError(`${options.entry} does not exist${options.tsc ? ' after tsc' : ''}; pass the compiled entry (default dist/main.js)`);
  const esbuild = await import('esbuild');
  const outfile = path.resolve(options.outfile);
  const result = await esbuild.build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    keepNames: true,
    minify: options.minify,
    sourcemap: options.sourcemap,
    legalComments: 'none',
    logLevel: 'silent',
  });
  for (const warning of result.warnings) out.info(out.dim(`[typemcp build] warning: ${warning.text}`));
  const size = fs.statSync(outfile).size;
  out.info(`${out.green('built')} ${path.relative(cwd, outfile)} ${(size / 1024).toFixed(0)} KiB in ${Date.now() - started} ms`);
  return 0;
}

function findTsc(cwd: string): string {
  try {
    return require.resolve('typescript/bin/tsc', { paths: [cwd] });
  } catch {
    throw new UsageError('typescript is not installed in this project (npm install --save-dev typescript), or pass --no-tsc');
  }
}
