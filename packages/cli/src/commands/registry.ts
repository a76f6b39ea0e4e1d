import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { launchFor } from '../launch';
import type { Output } from '../output';
import { checkServerJson } from '../registry/rules';
import { RegistryError, mcpNameProblem, serverJsonFor } from '../registry/serverJson';
import type { DeclaredServer, PackageManifest, ServerJson } from '../registry/serverJson';
import { UsageError } from '../UsageError';

export interface RegistryInitOptions {
  /** The server entry to load (a built `.js`, or TypeScript through swc). */
  entry: string;
  /** URLs the server is deployed at (Streamable HTTP). */
  remotes?: string[];
  /** Describe the npm package; false for a server only deployed (default true). */
  npmPackage?: boolean;
  /** The server to describe, by name, when the entry makes several. */
  server?: string;
  /** Replace an existing server.json. */
  force?: boolean;
  /** Where to write; default `server.json` in the current folder. */
  output?: string;
}

/**
 * `typemcp registry init`: loads the entry (its servers do not listen), takes the identity its
 * server declares and package.json's name, version and `mcpName`, and writes `server.json`,
 * checked as `registry validate` checks it. 1 when it cannot: a placeholder `mcpName`, no
 * description, a check that fails, an existing file without `--force`.
 */
export async function registryInit(options: RegistryInitOptions, out: Output, cwd = process.cwd()): Promise<number> {
  const output = path.resolve(cwd, options.output ?? 'server.json');
  const manifest = readManifest(cwd);
  for (const remote of options.remotes ?? []) checkRemote(remote);
  if (fs.existsSync(output) && !options.force) {
    out.error(`${path.relative(cwd, output) || output} exists; run with --force to replace it`);
    return 1;
  }
  // Before loading anything: these need the author, not the code.
  const problem = mcpNameProblem(manifest);
  if (problem) {
    out.error(problem);
    return 1;
  }
  out.progress('loading the entry');
  const servers = declaredServers(path.resolve(cwd, options.entry), cwd);
  if (!servers.ok) {
    out.error(`loading ${options.entry} to read its server failed`);
    if (servers.report) out.info(servers.report);
    return 1;
  }
  const server = pickServer(servers.servers, options.server);
  if (server.version !== manifest.version) out.info(out.dim(`warning: the server declares version ${server.version}; server.json takes package.json's ${manifest.version}, what npm publishes`));
  let document: ServerJson;
  try {
    document = serverJsonFor({ manifest, server, remotes: options.remotes, npmPackage: options.npmPackage });
  } catch (error) {
    if (!(error instanceof RegistryError)) throw error;
    out.error(error.message);
    return 1;
  }
  const report = checkServerJson(document, manifest);
  for (const warning of report.warnings) out.info(out.dim(`warning: ${warning}`));
  if (report.errors.length) {
    out.error(`server.json would not pass the registry's checks; nothing written:\n${report.errors.map((e) => `  ${e}`).join('\n')}`);
    return 1;
  }
  fs.writeFileSync(output, `${JSON.stringify(document, null, 2)}\n`);
  const shown = path.relative(cwd, output).startsWith('..') ? output : path.relative(cwd, output);
  out.info(`${out.green('wrote')} ${shown}: ${document.name} ${document.version}${document.packages ? `, npm ${manifest.name}` : ''}${document.remotes ? `, ${document.remotes.length} remote${document.remotes.length === 1 ? '' : 's'}` : ''}`);
  return 0;
}

/**
 * `typemcp registry validate [file]`: the file against the official schema and the registry's
 * own rules, with the package.json beside it (else the current folder's). 0 when it passes, 1 when not (each problem
 * printed).
 */
export function registryValidate(file: string, out: Output, cwd = process.cwd()): number {
  const target = path.resolve(cwd, file);
  if (!fs.existsSync(target)) {
    out.error(`${file} does not exist; write it with typemcp registry init`);
    return 1;
  }
  let document: unknown;
  try {
    document = JSON.parse(fs.readFileSync(target, 'utf8'));
  } catch (error) {
    out.error(`${file} is not JSON: ${(error as Error).message}`);
    return 1;
  }
  // The package.json beside the file, else the current folder's.
  const beside = path.dirname(target);
  const report = checkServerJson(document, readManifest(fs.existsSync(path.join(beside, 'package.json')) ? beside : cwd));
  for (const warning of report.warnings) out.info(out.dim(`warning: ${warning}`));
  if (report.errors.length) {
    out.error(`${file} would be refused by the MCP Registry:\n${report.errors.map((e) => `  ${e}`).join('\n')}`);
    return 1;
  }
  const { name, version } = document as ServerJson;
  out.info(`${out.green('valid')} ${file}: ${name} ${version} (schema 2025-12-11 and the registry's rules)`);
  return 0;
}

function readManifest(dir: string): PackageManifest {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) throw new UsageError(`no package.json in ${dir}: run the command in the project's folder`);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as PackageManifest;
}

function checkRemote(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url.replace(/\{[^{}]+\}/g, 'x'));
  } catch {
    // reported below
  }
  if (parsed?.protocol !== 'https:') throw new UsageError(`--remote must be an https URL (parts in {braces} become variables), not ${JSON.stringify(url)}`);
}

function pickServer(servers: DeclaredServer[], name: string | undefined): DeclaredServer {
  if (name !== undefined) {
    const found = servers.find((server) => server.name === name);
    if (!found) throw new UsageError(`the entry makes no server named ${JSON.stringify(name)}; it makes ${servers.map((s) => s.name).join(', ') || 'none'}`);
    return found;
  }
  const names = [...new Set(servers.map((server) => server.name))];
  if (names.length === 0) throw new UsageError('the entry made no McpServer while it loaded: give the entry that makes it (a server made only on a first request is not seen)');
  if (names.length > 1) throw new UsageError(`the entry makes several servers (${names.join(', ')}): pick one with --server <name>`);
  return servers[0];
}

export type Declared = { ok: true; servers: DeclaredServer[] } | { ok: false; report: string };

/**
 * The servers the entry makes while it loads, heard by `collectServers` of the @typemcp/core it
 * resolves, in a Node process of its own: servers do not listen, an exit it asks for is ignored.
 */
export function declaredServers(entry: string, cwd: string): Declared {
  const launch = launchFor(entry, []);
  const loader = launch.args.slice(0, launch.args.indexOf(launch.entry));
  const esm = loader.includes('--import') || /\.mjs$/.test(entry);
  const script = [
    'const exit = process.exit.bind(process);',
    'process.exit = () => undefined;',
    'const { createRequire } = require("node:module");',
    `const entry = ${JSON.stringify(launch.entry)};`,
    'const { collectServers } = createRequire(entry)("@typemcp/core/build");',
    `collectServers(async () => { await ${esm ? `import(${JSON.stringify(pathToFileURL(launch.entry).href)})` : 'require(entry)'}; }).then((servers) => {`,
    '  process.stdout.write("\\n@@servers@@" + JSON.stringify(servers));',
    '  exit(0);',
    '}, (error) => {',
    '  process.stderr.write((error && error.stack) || String(error));',
    '  exit(1);',
    '});',
  ].join('\n');
  const env: NodeJS.ProcessEnv = { ...process.env, TYPEMCP_COLLECTING_SERVERS: '1' };
  delete env.NODE_OPTIONS;
  const ran = spawnSync(process.execPath, [...loader, '-e', script], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env, timeout: 120_000 });
  const marker = ran.stdout?.lastIndexOf('@@servers@@') ?? -1;
  if (ran.status !== 0 || marker < 0) return { ok: false, report: `${ran.error?.message ?? ''}${ran.stderr ?? ''}`.trim() };
  return { ok: true, servers: JSON.parse(ran.stdout.slice(marker + '@@servers@@'.length)) as DeclaredServer[] };
}
