import fs from 'node:fs';
import path from 'node:path';

/** How the project's server talks to clients when started without --stdio or --http. */
export type TransportChoice = 'stdio' | 'http';
/** Where the project's server runs: Node (the default template), or Bun, Deno, Cloudflare Workers (an overlay on it). */
export type RuntimeChoice = 'node' | 'bun' | 'deno' | 'workers';
/** The package manager that installs the project, and whose commands the next steps show. */
export type PackageManager = 'npm' | 'pnpm' | 'yarn' | 'bun';

/** The options of `scaffold`: where the project goes, and what it is made of. */
export interface ScaffoldOptions {
  /** Folder to create the project in; it must not exist or be empty. */
  directory: string;
  /** Package name; defaults to the folder's name. */
  name?: string;
  /** Transport the server uses when started without --stdio or --http. Default: stdio. */
  transport?: TransportChoice;
  /** The runtime the project is made for. Default: node. */
  runtime?: RuntimeChoice;
  /**
   * Serve over HTTP behind the built-in sign-in (`signIn` of @typemcp/auth) with a development
   * login: the sign-in overlay on the template. Node only; HTTP is then the transport.
   */
  signIn?: boolean;
  /**
   * The server's name in the MCP Registry (package.json's `mcpName`, `server.json`'s `name`):
   * `io.github.<user>/<server>` or a reverse domain the author owns. Default: a placeholder
   * namespace (`io.github.your-github-user/<package name>`) that `typemcp registry` refuses.
   */
  mcpName?: string;
  /** Version range written for the @typemcp/* packages. Default: ^ this package's version. */
  typemcpVersion?: string;
  /** Template folder to copy. Default: the template shipped with this package. */
  templateDir?: string;
  /** The folder of runtime overlays (bun/, deno/, workers/). Default: the one shipped beside the template. */
  runtimesDir?: string;
  /** The sign-in overlay. Default: the one shipped beside the template. */
  signInDir?: string;
  /**
   * Include the example tools (the notes server: tools, resources, a prompt, completions).
   * `false` starts from a minimal server instead: one `hello` tool, its test and README, for
   * every runtime and with sign-in (the overlays of `minimalDir`, applied last). Default: true.
   */
  examples?: boolean;
  /** The minimal overlays (default/, runtimes/<runtime>/, signin/). Default: the ones shipped beside the template. */
  minimalDir?: string;
  /**
   * A registry the @typemcp packages come from instead of the public one (a local registry of
   * `npm run release:local`): the project gets a `.npmrc` with `@typemcp:registry=<url>`, so
   * its `npm install` (and `npm install @typemcp/auth`) finds them there.
   */
  registry?: string;
}

/**
 * The project `scaffold` made: its folder, its package name, and the files written (relative
 * paths, sorted).
 */
export interface ScaffoldResult {
  directory: string;
  name: string;
  files: string[];
}

/** The name the template uses for itself; every occurrence becomes the project's name. */
const TEMPLATE_NAME = 'typemcp-template-default';
/** What a template folder may hold that is not part of the template. */
const SKIPPED = new Set(['node_modules', 'dist', 'coverage']);
/** npm drops .gitignore files from packages, so templates carry it under this name (and .github likewise, to be safe). */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore', github: '.github' };
/** The namespace of the placeholder `mcpName`; `typemcp registry` refuses it until the author sets theirs. */
export const PLACEHOLDER_NAMESPACE = 'io.github.your-github-user';
/** The registry's form of a server name: a namespace, one slash, a name. */
const MCP_NAME = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;
const TEXT_FILE = /\.(ts|js|cjs|mjs|json|md)$|^gitignore$/;
const DEFAULT_TRANSPORT_LINE = /const DEFAULT_TRANSPORT: 'stdio' \| 'http' = '(stdio|http)';/;

/** Copies the template into `options.directory`, naming the project and pinning versions. */
export function scaffold(options: ScaffoldOptions): ScaffoldResult {
  const directory = path.resolve(options.directory);
  const name = options.name ?? path.basename(directory);
  const problem = packageNameProblem(name);
  if (problem) throw new ScaffoldError(`"${name}" cannot be a package name: ${problem}. Pick another folder name or pass --name.`);
  if (!isEmptyOrMissing(directory)) {
    throw new ScaffoldError(`${directory} is not empty. Choose a new folder, or empty this one first.`);
  }
  const mcpName = options.mcpName ?? `${PLACEHOLDER_NAMESPACE}/${name.replace(/^@[^/]+\//, '').replace(/[^a-zA-Z0-9._-]/g, '-')}`;
  if (!MCP_NAME.test(mcpName) || mcpName.length > 200) {
    throw new ScaffoldError(`"${mcpName}" cannot be an MCP Registry name: use io.github.<your GitHub user>/<server> or a reverse domain you own, com.example/<server> (letters, digits, "." and "-" before the one "/", also "_" after it)`);
  }
  const templateDir = options.templateDir ?? findTemplate();
  const typemcpVersion = options.typemcpVersion ?? `^${ownVersion()}`;
  const runtime = options.runtime ?? 'node';
  // A Worker serves HTTP: it has no stdio.
  const transport = options.transport ?? (options.signIn || runtime === 'workers' ? 'http' : 'stdio');
  if (runtime === 'workers' && transport !== 'http') throw new ScaffoldError('A Worker serves Streamable HTTP only (it has no stdio); leave out --transport stdio.');
  const registry = options.registry === undefined ? undefined : registryUrl(options.registry);
  if (options.signIn && runtime !== 'node') throw new ScaffoldError(`Sign-in is made for the node runtime, not ${runtime}; leave out --runtime or --sign-in.`);
  if (options.signIn && transport !== 'http') throw new ScaffoldError('A project with sign-in serves HTTP (sign-in needs it); leave out --transport stdio.');

  fs.mkdirSync(directory, { recursive: true });
  const transform = (relative: string, content: string) => {
    if (relative === 'package.json') return packageJson(content, name, typemcpVersion, mcpName, transport);
    if (relative === 'server.json') return serverJson(content, name, mcpName);
    let text = content.split(TEMPLATE_NAME).join(name);
    if (relative === path.join('src', 'main.ts')) {
      text = text.replace(DEFAULT_TRANSPORT_LINE, `const DEFAULT_TRANSPORT: 'stdio' | 'http' = '${transport}';`);
    }
    return text;
  };
  const files = new Set(copyTree(templateDir, directory, transform));
  const overlays = [
    ...(runtime === 'node' ? [] : [{ dir: path.join(options.runtimesDir ?? findBesideTemplate(templateDir, 'runtimes', 'runtime overlays'), runtime), what: `runtime overlay ${runtime}` }]),
    ...(options.signIn ? [{ dir: options.signInDir ?? findBesideTemplate(templateDir, 'signin', 'sign-in overlay'), what: 'sign-in overlay' }] : []),
  ];
  if (options.examples === false) {
    // Without the examples: the same layers again, each replacing what it says of the notes with the hello tool.
    const minimal = options.minimalDir ?? findBesideTemplate(templateDir, 'minimal', 'minimal overlays');
    overlays.push(
      { dir: path.join(minimal, 'default'), what: 'minimal overlay' },
      ...(runtime === 'node' ? [] : [{ dir: path.join(minimal, 'runtimes', runtime), what: `minimal overlay of ${runtime}` }]),
      ...(options.signIn ? [{ dir: path.join(minimal, 'signin'), what: 'minimal overlay of sign-in' }] : []),
    );
  }
  for (const overlay of overlays) for (const file of applyOverlay(overlay.dir, overlay.what, directory, transform, typemcpVersion)) files.add(file);
  if (registry) {
    fs.writeFileSync(path.join(directory, '.npmrc'), `# The @typemcp packages come from this registry (remove the line once they are on the public one).\n@typemcp:registry=${registry}\n`);
    files.add('.npmrc');
  }
  return { directory, name, files: [...files].filter((file) => fs.existsSync(path.join(directory, file))).sort() };
}

/**
 * What an overlay's overlay.json says: files to leave out, the scripts, devDependencies to add
 * and drop, @typemcp/* dependencies to add (at the version of the others), `main`.
 */
interface Overlay {
  remove?: string[];
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  removeDevDependencies?: string[];
  typemcpDependencies?: string[];
  main?: string;
  /** Fields of package.json the overlay takes out (`bin`, for a server that is not run with npx). */
  removeFields?: string[];
  /** The project's description, in package.json and server.json. */
  description?: string;
}

/**
 * An overlay on the copied template (a runtime's, sign-in's): its files replace or join the
 * template's (named and set up as they are), the files it names are removed, and package.json
 * takes its scripts and dependencies.
 */
function applyOverlay(overlayDir: string, what: string, directory: string, transform: (relative: string, content: string) => string, typemcpVersion: string): string[] {
  if (!fs.existsSync(path.join(overlayDir, 'overlay.json'))) throw new ScaffoldError(`The ${what} (${overlayDir}) is missing; reinstall create-typemcp.`);
  const overlay = JSON.parse(fs.readFileSync(path.join(overlayDir, 'overlay.json'), 'utf8')) as Overlay;
  // A file, or a folder with everything in it.
  for (const file of overlay.remove ?? []) fs.rmSync(path.join(directory, file), { force: true, recursive: true });
  const written = copyTree(overlayDir, directory, transform).filter((file) => file !== 'overlay.json');
  fs.rmSync(path.join(directory, 'overlay.json'));
  const manifestFile = path.join(directory, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Record<string, unknown>;
  if (overlay.scripts) manifest.scripts = overlay.scripts;
  if (overlay.main) manifest.main = overlay.main;
  if (overlay.description) {
    manifest.description = overlay.description;
    const serverJsonFile = path.join(directory, 'server.json');
    if (fs.existsSync(serverJsonFile)) {
      const document = JSON.parse(fs.readFileSync(serverJsonFile, 'utf8')) as Record<string, unknown>;
      fs.writeFileSync(serverJsonFile, `${JSON.stringify({ ...document, description: overlay.description }, null, 2)}\n`);
    }
  }
  for (const field of overlay.removeFields ?? []) delete manifest[field];
  const devDependencies = { ...(manifest.devDependencies as Record<string, string> | undefined), ...overlay.devDependencies };
  for (const dependency of overlay.removeDevDependencies ?? []) delete devDependencies[dependency];
  manifest.devDependencies = sorted(devDependencies);
  const dependencies = { ...(manifest.dependencies as Record<string, string> | undefined) };
  for (const dependency of overlay.typemcpDependencies ?? []) dependencies[dependency] = typemcpVersion;
  manifest.dependencies = sorted(dependencies);
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return written;
}

function sorted(dependencies: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b)));
}

/** The commands a user runs next, for the package manager they chose. */
export function nextSteps(result: ScaffoldResult, packageManager: PackageManager, installed: boolean): string[] {
  const run = (script: string) => (packageManager === 'npm' ? `npm run ${script}` : `${packageManager} ${script}`);
  const relative = path.relative(process.cwd(), result.directory) || '.';
  return [
    ...(relative === '.' ? [] : [`cd ${relative.includes(' ') ? JSON.stringify(relative) : relative}`]),
    ...(installed ? [] : [`${packageManager} install`]),
    `${run('build')} && ${packageManager === 'npm' ? 'npm start' : run('start')}`,
    run('test'),
    run('dev'),
  ];
}

/** A registry's URL as npm writes it: http(s), ending in "/". */
function registryUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ScaffoldError(`"${value}" is not a registry URL (http://127.0.0.1:4873/, for one)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ScaffoldError(`"${value}" is not a registry URL: it must be http or https`);
  return url.href.endsWith('/') ? url.href : `${url.href}/`;
}

/**
 * Why a project cannot be made (a bad name, a folder that is not empty, options that do not go
 * together, a missing template); the message says what to do.
 */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}

/** Why `name` is not a valid npm package name, or undefined when it is. */
export function packageNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > 214) return 'it is longer than 214 characters';
  if (name !== name.toLowerCase()) return 'it has capital letters';
  if (/^[._]/.test(name)) return 'it starts with "." or "_"';
  if (!/^(@[a-z0-9-~][a-z0-9-._~]*\/)?[a-z0-9-~][a-z0-9-._~]*$/.test(name)) {
    return 'only lowercase letters, digits, "-", ".", "_" and "~" are allowed (with an optional @scope/)';
  }
  return undefined;
}

function isEmptyOrMissing(directory: string): boolean {
  try {
    return fs.readdirSync(directory).filter((entry) => entry !== '.git').length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/** The template shipped inside the package (copied there when it is packed), else the repository's. */
function findTemplate(): string {
  const candidates = [path.join(__dirname, '..', 'template'), path.join(__dirname, '..', '..', '..', 'templates', 'default')];
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'package.json')));
  if (!found) throw new ScaffoldError(`The project template is missing (looked in ${candidates.join(', ')}); reinstall create-typemcp.`);
  return found;
}

/** An overlay folder beside the template: shipped as template-<name>/ in the package, templates/<name>/ in the repository (runtimes, signin, minimal). */
function findBesideTemplate(templateDir: string, name: string, what: string): string {
  const candidates = [path.join(templateDir, '..', `template-${name}`), path.join(templateDir, '..', name)];
  const found = candidates.find((dir) => fs.existsSync(dir));
  if (!found) throw new ScaffoldError(`The ${what} is missing (looked in ${candidates.join(', ')}); reinstall create-typemcp.`);
  return found;
}

function ownVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
}

function packageJson(content: string, name: string, typemcpVersion: string, mcpName: string, transport: TransportChoice): string {
  const manifest = JSON.parse(content) as Record<string, unknown>;
  manifest.name = name;
  // typemcp dev serves stdio unless told otherwise: the project's own transport for `npm run dev`.
  const scripts = manifest.scripts as Record<string, string> | undefined;
  if (transport === 'http' && scripts?.dev && /^typemcp dev\b/.test(scripts.dev) && !/--(http|stdio)\b/.test(scripts.dev)) scripts.dev = `${scripts.dev} --http`;
  if ('mcpName' in manifest) manifest.mcpName = mcpName;
  const bin = manifest.bin as Record<string, string> | undefined;
  // The command npx runs is the package's own name, without its scope.
  if (bin) manifest.bin = Object.fromEntries(Object.values(bin).map((file) => [name.replace(/^@[^/]+\//, ''), file]));
  for (const field of ['dependencies', 'devDependencies'] as const) {
    const deps = manifest[field] as Record<string, string> | undefined;
    for (const dep of Object.keys(deps ?? {})) if (dep.startsWith('@typemcp/')) deps![dep] = typemcpVersion;
  }
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** The template's server.json for this project: its registry name and npm package. */
function serverJson(content: string, name: string, mcpName: string): string {
  const document = JSON.parse(content) as { name?: string; packages?: Array<{ registryType?: string; identifier?: string }> };
  document.name = mcpName;
  for (const entry of document.packages ?? []) if (entry.registryType === 'npm') entry.identifier = name;
  return `${JSON.stringify(document, null, 2)}\n`;
}

/** Copies `from` into `to`, passing text files through `transform`; returns the paths written. */
function copyTree(from: string, to: string, transform: (relative: string, content: string) => string, relative = '', renamed = relative): string[] {
  const written: string[] = [];
  for (const entry of fs.readdirSync(path.join(from, relative), { withFileTypes: true })) {
    if (SKIPPED.has(entry.name) || entry.name.endsWith('.tsbuildinfo')) continue;
    const source = path.join(relative, entry.name);
    const target = path.join(renamed, RENAMED[entry.name] ?? entry.name);
    if (entry.isDirectory()) {
      fs.mkdirSync(path.join(to, target), { recursive: true });
      written.push(...copyTree(from, to, transform, source, target));
      continue;
    }
    if (TEXT_FILE.test(entry.name)) {
      fs.writeFileSync(path.join(to, target), transform(target, fs.readFileSync(path.join(from, source), 'utf8')));
    } else {
      fs.copyFileSync(path.join(from, source), path.join(to, target));
    }
    written.push(target);
  }
  return written;
}
