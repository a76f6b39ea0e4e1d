import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Output } from '../output';
import { UsageError } from '../UsageError';
import { snapshotPreloads, snapshotBlobPath, snapshotEntrySource, writeSnapshot } from './snapshot';
import { collectValidators } from './validators';

/** Where the bundle runs: Node (CommonJS as the entry, or its ES module), Bun, Deno, or Cloudflare Workers (ES modules). */
export type BuildTarget = 'node' | 'bun' | 'deno' | 'workers';
export const BUILD_TARGETS: readonly BuildTarget[] = ['node', 'bun', 'deno', 'workers'];

export interface BuildOptions {
  entry: string;
  /** Default: node. */
  target?: BuildTarget;
  /** Compile the validators at build time (default true); `workers` needs them. */
  precompile?: boolean;
  /** Default: dist/bundle/server.js (server.mjs for an ES module entry, bun and deno; worker.mjs for workers). */
  outfile?: string;
  minify: boolean;
  sourcemap: boolean;
  tsc: boolean;
  snapshot: boolean;
  /** Also write esbuild's metafile beside the bundle (`<bundle>.meta.json`): what went into it. */
  metafile?: boolean;
  /**
   * For workers: the Worker runs with the `nodejs_compat` flag, so Node's modules (`node:…`)
   * are left to the runtime instead of stopping the build. Also on when the project's wrangler
   * configuration lists `nodejs_compat` in `compatibility_flags`.
   */
  nodejsCompat?: boolean;
}

/**
 * A production bundle: the project's own tsc first (its output keeps the decorator metadata
 * TypeMCP reads), then the validators of every schema the entry's servers use, compiled by
 * loading the entry once, then esbuild bundles that output, its dependencies and the
 * validators into one file for the target: for Node in the entry's module format (CommonJS,
 * or an ES module for an ES module entry), an ES module for Bun, Deno and Workers.
 */
export async function build(options: BuildOptions, out: Output): Promise<number> {
  const cwd = process.cwd();
  const started = Date.now();
  const target = options.target ?? 'node';
  if (options.snapshot && target !== 'node') throw new UsageError(`--snapshot is for --target node; ${target} has no startup snapshots`);
  if (options.precompile === false && target === 'workers') throw new UsageError('--no-precompile cannot build for workers: Workers forbid compiling validators at run time');
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
  const entryFormat = moduleFormatOf(entry);
  const format = target === 'node' ? entryFormat : 'esm';
  const outfile = path.resolve(options.outfile ?? path.join('dist', 'bundle', target === 'workers' ? 'worker.mjs' : format === 'esm' ? 'server.mjs' : 'server.js'));
  // The generated validators sit beside the bundle while esbuild takes them in.
  const validators = path.join(path.dirname(outfile), '.typemcp-validators.cjs');
  const nodejsCompat = target === 'workers' && (options.nodejsCompat === true || wranglerHasNodejsCompat(cwd, path.dirname(outfile)));
  let precompiled = options.precompile ?? true;
  let exportNames: string[] = [];
  if (precompiled) {
    out.progress('compiling the validators');
    const collected = collectValidators(entry, entryFormat, validators);
    if (!collected.ok) {
      if (collected.report) out.info(collected.report);
      if (target === 'workers') {
        out.error('loading the entry to compile its validators failed; no bundle was made (Workers need them)');
        return 1;
      }
      // Elsewhere ajv compiles at run time: the bundle is made without them.
      out.info(out.dim('warning: loading the entry to compile its validators failed; the bundle compiles them at run time'));
      precompiled = false;
    } else {
      for (const { what, reason } of collected.skipped) out.info(out.dim(`warning: ${what}: ${reason}`));
      out.info(`${out.green('compiled')} ${collected.count} validator${collected.count === 1 ? '' : 's'}`);
      exportNames = collected.exportNames;
    }
  }
  out.progress(`bundling ${path.relative(cwd, entry)} for ${target}`);
  const esbuild = await import('esbuild');
  let result;
  try {
    result = await esbuild.build({
      stdin: {
        contents: wrapperSource(target, format, entry, precompiled ? validators : undefined, exportNames),
        resolveDir: path.dirname(entry),
        sourcefile: 'typemcp-entry.js',
        loader: 'js',
      },
      outfile,
      bundle: true,
      ...TARGET_SETTINGS[target],
      // With nodejs_compat, workerd has Node's modules: they stay imports of the bundle.
      external: nodejsCompat ? ['node:*', ...builtinModules] : undefined,
      plugins: target === 'workers' && precompiled ? [withoutAjvCompiler] : [],
      format,
      // CommonJS packages inside an ES module bundle still call require (for Node's modules).
      banner: format === 'esm' && target !== 'workers' ? { js: ESM_REQUIRE } : undefined,
      keepNames: true,
      minify: options.minify,
      sourcemap: options.sourcemap,
      legalComments: 'none',
      logLevel: 'silent',
      metafile: true,
    });
  } catch (error) {
    fs.rmSync(validators, { force: true });
    reportEsbuildErrors(error, out);
    const nodeModule = target === 'workers' ? unresolvedNodeModule(error) : undefined;
    if (nodeModule) {
      out.error(
        `${nodeModule} is one of Node's modules, which a Worker has only with the nodejs_compat flag: pass --nodejs-compat ` +
          `(or put compatibility_flags = ["nodejs_compat"] in the project's wrangler.toml), or leave Node's modules out of the Worker's code`,
      );
    }
    out.error('esbuild could not bundle the entry; no bundle was made');
    return 1;
  }
  if (options.metafile) fs.writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
  for (const warning of result.warnings) out.info(out.dim(`warning: ${warning.text}`));
  const size = fs.statSync(outfile).size;
  const shown = path.relative(cwd, outfile);
  out.info(`${out.green('built')} ${shown.startsWith('..') ? outfile : shown} ${formatSize(size)} in ${Date.now() - started} ms`);
  if (target === 'workers') writeWranglerConfig(cwd, outfile, nodejsCompat, out);
  try {
    if (!options.snapshot) return 0;
    const preloads = [...(precompiled ? [validators] : []), ...snapshotPreloads(entry, result.metafile, cwd, undefined, { ajv: !precompiled })];
    return await buildSnapshot(esbuild, entry, outfile, preloads, started, out);
  } finally {
    fs.rmSync(validators, { force: true });
  }
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
  preloads: string[],
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
          contents: snapshotEntrySource(entry, preloads, path.basename(outfile)),
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

/** esbuild's platform and the package.json conditions each target resolves with. */
const TARGET_SETTINGS: Record<BuildTarget, Pick<import('esbuild').BuildOptions, 'platform' | 'target' | 'conditions' | 'mainFields'>> = {
  node: { platform: 'node', target: 'node20' },
  bun: { platform: 'node', target: 'esnext', conditions: ['bun'] },
  deno: { platform: 'node', target: 'esnext', conditions: ['deno'] },
  // The Web entry of @typemcp/core: nothing of Node's modules is reachable.
  workers: { platform: 'browser', target: 'es2022', conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'] },
};

/**
 * For Workers, with every validator precompiled: ajv's compiler (and ajv-formats' entry, which
 * loads it) is left out of @typemcp/core's lazy `require`s, a quarter of a megabyte. Workers
 * forbid compiling anyway; the core says so before it would require them.
 */
const withoutAjvCompiler: import('esbuild').Plugin = {
  name: 'typemcp-without-ajv-compiler',
  setup(build) {
    build.onResolve({ filter: /^(ajv\/dist\/2020|ajv-formats)$/ }, (args) =>
      /[\\/]validation[\\/]ajv\.[cm]?js$/.test(args.importer) ? { path: args.path, namespace: 'typemcp-without-ajv-compiler' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'typemcp-without-ajv-compiler' }, (args) => ({
      contents: `throw new Error(${JSON.stringify(`${args.path} is not in a Workers bundle: typemcp build precompiled every validator`)});`,
      loader: 'js',
    }));
  },
};

/**
 * The bundle's entry: the precompiled validators first, so they are installed before the
 * application's servers exist, then the application. A Worker's entry passes on the
 * application's default export (the object with `fetch`) and its other exports by name
 * (Durable Object classes, entrypoints), as the build found them.
 */
export function wrapperSource(target: BuildTarget, format: 'esm' | 'cjs', entry: string, validators: string | undefined, exportNames: readonly string[]): string {
  const lines = ['// Generated by typemcp build.'];
  if (format === 'cjs') {
    if (validators) lines.push(`require(${JSON.stringify(validators)});`);
    lines.push(`module.exports = require(${JSON.stringify(entry)});`);
    return lines.join('\n');
  }
  if (validators) lines.push(`import ${JSON.stringify(validators)};`);
  if (target === 'workers') {
    lines.push(`import * as application from ${JSON.stringify(entry)};`, 'export default application.default;');
    const named = exportNames.filter((name) => /^[A-Za-z_$][\w$]*$/.test(name));
    if (named.length > 0) lines.push(`export const { ${named.join(', ')} } = application;`);
  } else {
    lines.push(`import ${JSON.stringify(entry)};`);
  }
  return lines.join('\n');
}

/** A wrangler.toml beside the Worker's bundle, for `wrangler dev` and `wrangler deploy`; one written before is kept. */
function writeWranglerConfig(cwd: string, outfile: string, nodejsCompat: boolean, out: Output): void {
  const config = path.join(path.dirname(outfile), 'wrangler.toml');
  if (fs.existsSync(config)) {
    if (nodejsCompat && !compatibilityFlags(fs.readFileSync(config, 'utf8')).includes('nodejs_compat')) {
      out.info(out.dim(`warning: ${path.relative(cwd, config)} (kept from an earlier build) has no compatibility_flags = ["nodejs_compat"]: add it, or remove the file to have it written again`));
    }
    return;
  }
  let name = 'typemcp-server';
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8')) as { name?: string };
    if (manifest.name) name = manifest.name.replace(/^@[^/]+\//, '').replace(/[^a-z0-9-]/gi, '-').toLowerCase().slice(0, 63);
  } catch {
    // no package.json: the default name
  }
  fs.writeFileSync(
    config,
    [
      '# Written by typemcp build --target workers (kept on later builds): the bundle as it is, no further bundling.',
      `name = ${JSON.stringify(name)}`,
      `main = ${JSON.stringify(path.basename(outfile))}`,
      `compatibility_date = "${WORKERS_COMPATIBILITY_DATE}"`,
      'no_bundle = true',
      ...(nodejsCompat ? ['compatibility_flags = ["nodejs_compat"]'] : []),
      '',
      '# requestState.secret: `npx wrangler secret put MCP_REQUEST_STATE_SECRET`, or .dev.vars beside this file locally.',
      '',
    ].join('\n'),
  );
  out.info(`${out.green('wrote')} ${path.relative(cwd, config)}`);
}

/** The names of wrangler's configuration files, TOML or JSON. */
const WRANGLER_CONFIGS = ['wrangler.toml', 'wrangler.json', 'wrangler.jsonc'];

/** Whether the project's wrangler configuration (or the one kept beside the bundle) turns on nodejs_compat. */
export function wranglerHasNodejsCompat(cwd: string, bundleDir: string): boolean {
  const files = [...WRANGLER_CONFIGS.map((name) => path.join(cwd, name)), path.join(bundleDir, 'wrangler.toml')];
  return files.some((file) => fs.existsSync(file) && compatibilityFlags(fs.readFileSync(file, 'utf8')).includes('nodejs_compat'));
}

/** The `compatibility_flags` of a wrangler.toml (`compatibility_flags = [ … ]`) or wrangler.json(c) (`"compatibility_flags": [ … ]`). */
export function compatibilityFlags(text: string): string[] {
  const withoutComments = text.replace(/^\s*(#|\/\/).*$/gm, '');
  const list = /(?:^|[\s{,])"?compatibility_flags"?\s*[=:]\s*\[([^\]]*)\]/m.exec(withoutComments)?.[1];
  return list === undefined ? [] : [...list.matchAll(/["']([^"']+)["']/g)].map((match) => match[1]);
}

/** The Node module (`node:timers/promises`, `fs`) esbuild could not resolve for a Worker, if that is why it failed. */
function unresolvedNodeModule(error: unknown): string | undefined {
  for (const { text } of (error as { errors?: Array<{ text: string }> }).errors ?? []) {
    const name = /^Could not resolve "([^"]+)"/.exec(text)?.[1];
    if (name && (name.startsWith('node:') || builtinModules.includes(name))) return name;
  }
  return undefined;
}

/** The newest compatibility date the workerd of the wrangler we test with accepts. */
const WORKERS_COMPATIBILITY_DATE = '2026-05-01';

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
